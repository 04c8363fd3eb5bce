// Command kstatus prints what sigs.k8s.io/cli-utils' kstatus (the library Flux's health checks and
// `kubectl wait`-style tools use) computes for each object of a JSON list read on stdin: one JSON line per
// object, {"name", "status", "message"}. The tests feed it objects read from the real API server, so the
// operator's conditions are judged by the upstream rules, not by our reading of them.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type verdict struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

func main() {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&list); err != nil {
		fmt.Fprintln(os.Stderr, "kstatus: reading a JSON list on stdin:", err)
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	for _, item := range list.Items {
		// Unstructured's own decoder keeps integers int64, as the accessors kstatus uses expect.
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(item); err != nil {
			fmt.Fprintln(os.Stderr, "kstatus: decoding an item:", err)
			os.Exit(2)
		}
		res, err := status.Compute(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kstatus:", u.GetName(), err)
			os.Exit(1)
		}
		if err := out.Encode(verdict{Name: u.GetName(), Status: res.Status.String(), Message: res.Message}); err != nil {
			os.Exit(1)
		}
	}
}
