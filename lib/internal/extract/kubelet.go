package extract

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Kubelet is what a container log's path says under the kubelet's
// layouts: /var/log/pods/NS_POD_UID/CONTAINER/N.log, and its links
// /var/log/containers/POD_NS_CONTAINER-ID.log (ID 64 hex digits). Only the
// path's last elements are read, so a tree mounted elsewhere
// (/host/var/log/pods/…) reads alike. Namespaces and pod names are DNS
// labels and subdomains, which hold no '_': the separator is unambiguous.
type Kubelet struct{ Namespace, Pod, Container string }

// KubeletPath reads path in the kubelet's layouts.
func KubeletPath(path string) (Kubelet, bool) {
	base := filepath.Base(path)
	dir := filepath.Dir(path)
	if k, ok := podsLayout(filepath.Base(filepath.Dir(dir)), filepath.Base(dir), base); ok {
		return k, true
	}
	return containersLayout(base)
}

// podsLayout reads NS_POD_UID/CONTAINER/N.log.
func podsLayout(podDir, container, file string) (Kubelet, bool) {
	n, ok := strings.CutSuffix(file, ".log")
	w := strings.Split(podDir, "_")
	if !ok || !allDigits(n) || len(w) != 3 || w[0] == "" || w[1] == "" || w[2] == "" || !plain(container) {
		return Kubelet{}, false
	}
	return Kubelet{Namespace: w[0], Pod: w[1], Container: container}, true
}

// containersLayout reads POD_NS_CONTAINER-ID.log.
func containersLayout(file string) (Kubelet, bool) {
	name, ok := strings.CutSuffix(file, ".log")
	w := strings.Split(name, "_")
	if !ok || len(w) != 3 || w[0] == "" || w[1] == "" {
		return Kubelet{}, false
	}
	i := strings.LastIndexByte(w[2], '-')
	if i <= 0 || !hex64(w[2][i+1:]) {
		return Kubelet{}, false
	}
	return Kubelet{Namespace: w[1], Pod: w[0], Container: w[2][:i]}, true
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func plain(s string) bool { return s != "" && s != "." && s != ".." && s != "/" }

func hex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// PathError is a store whose path is not in a kubelet layout, for a
// document that reads the fields such a path gives (namespace, pod,
// container): nothing of the store is counted.
type PathError struct {
	Store, Path string // Path "": the consumer was not told the store's file
	Fields      []string
}

func (e *PathError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("store %s: the document reads %s, which come from the store's file path, but its path was not given (an older feed sends no spec=); run the store under this release's feed", e.Store, strings.Join(e.Fields, ", "))
	}
	return fmt.Sprintf("store %s: %s is not in a kubelet layout (/var/log/pods/NS_POD_UID/CONTAINER/N.log or /var/log/containers/POD_NS_CONTAINER-ID.log), and the document reads %s, which come from that path; nothing of it was counted. Name only kubelet files (feed --glob '/var/log/pods/*/*/*.log'), or count this log with a document that reads none of %s",
		e.Store, e.Path, strings.Join(e.Fields, ", "), strings.Join(e.Fields, ", "))
}
