// Go's net/smtp, as a Go service sends mail: the message written by hand (mime.QEncoding for the subject,
// mime/multipart and base64 for an attachment), AUTH PLAIN over TLS.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"os"
	"strconv"
	"strings"
)

type attachment struct {
	Filename    string `json:"filename"`
	Path        string `json:"path"`
	ContentType string `json:"contentType"`
}

type message struct {
	To         []string    `json:"to"`
	Cc         []string    `json:"cc"`
	Bcc        []string    `json:"bcc"`
	Subject    string      `json:"subject"`
	Text       string      `json:"text"`
	Attachment *attachment `json:"attachment"`
}

type spec struct {
	Host     string    `json:"host"`
	Port     int       `json:"port"`
	Mode     string    `json:"mode"`
	CA       string    `json:"ca"`
	User     string    `json:"user"`
	Key      string    `json:"key"`
	From     string    `json:"from"`
	Messages []message `json:"messages"`
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func build(s spec, from *mail.Address, m message) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\n", from.String(), strings.Join(m.To, ", "))
	if len(m.Cc) > 0 {
		fmt.Fprintf(&b, "Cc: %s\r\n", strings.Join(m.Cc, ", "))
	}
	fmt.Fprintf(&b, "Subject: %s\r\nMIME-Version: 1.0\r\n", mime.QEncoding.Encode("utf-8", m.Subject))
	text := strings.ReplaceAll(m.Text, "\n", "\r\n")
	if m.Attachment == nil {
		fmt.Fprintf(&b, "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n%s\r\n", text)
		return b.Bytes()
	}
	w := multipart.NewWriter(&b)
	fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=%s\r\n\r\n", w.Boundary())
	part, err := w.CreatePart(textproto.MIMEHeader{"Content-Type": {"text/plain; charset=utf-8"}, "Content-Transfer-Encoding": {"8bit"}})
	must(err)
	fmt.Fprintf(part, "%s\r\n", text)
	content, err := os.ReadFile(m.Attachment.Path)
	must(err)
	part, err = w.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {m.Attachment.ContentType},
		"Content-Transfer-Encoding": {"base64"},
		"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": m.Attachment.Filename})},
	})
	must(err)
	encoded := base64.StdEncoding.EncodeToString(content)
	for len(encoded) > 76 {
		fmt.Fprintf(part, "%s\r\n", encoded[:76])
		encoded = encoded[76:]
	}
	fmt.Fprintf(part, "%s\r\n", encoded)
	must(w.Close())
	return b.Bytes()
}

func main() {
	raw, err := os.ReadFile(os.Args[1])
	must(err)
	var s spec
	must(json.Unmarshal(raw, &s))
	pem, err := os.ReadFile(s.CA)
	must(err)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	config := &tls.Config{RootCAs: pool, ServerName: s.Host}
	address := net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
	var client *smtp.Client
	if s.Mode == "tls" {
		conn, err := tls.Dial("tcp", address, config)
		must(err)
		client, err = smtp.NewClient(conn, s.Host)
		must(err)
	} else {
		client, err = smtp.Dial(address)
		must(err)
		must(client.StartTLS(config))
	}
	must(client.Auth(smtp.PlainAuth("", s.User, s.Key, s.Host)))
	from, err := mail.ParseAddress(s.From)
	must(err)
	for _, m := range s.Messages {
		must(client.Mail(from.Address))
		for _, r := range append(append(append([]string{}, m.To...), m.Cc...), m.Bcc...) {
			must(client.Rcpt(r))
		}
		w, err := client.Data()
		must(err)
		_, err = w.Write(build(s, from, m))
		must(err)
		must(w.Close())
	}
	must(client.Quit())
	fmt.Println("sent")
}
