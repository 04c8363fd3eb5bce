// etcd for the tests: the server at the version k8s.io/kubernetes itself requires (the pair it is tested with).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
