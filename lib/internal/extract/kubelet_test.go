package extract

import (
	"errors"
	"strings"
	"testing"
)

func TestAKubeletPathSaysItsNamespacePodAndContainer(t *testing.T) {
	id := strings.Repeat("0123456789abcdef", 4)
	for _, c := range []struct {
		path string
		want Kubelet
		ok   bool
	}{
		{"/var/log/pods/shop_web-7d9f_5c1a-77/nginx/0.log", Kubelet{"shop", "web-7d9f", "nginx"}, true},
		{"/host/var/log/pods/kube-system_coredns-5d78c9869d-abcde_9f1e/coredns/12.log", Kubelet{"kube-system", "coredns-5d78c9869d-abcde", "coredns"}, true},
		{"/var/log/containers/web-7d9f_shop_nginx-" + id + ".log", Kubelet{"shop", "web-7d9f", "nginx"}, true},
		{"/var/log/containers/web_shop_side-car-" + id + ".log", Kubelet{"shop", "web", "side-car"}, true},
		{"/var/log/pods/shop_web/nginx/0.log", Kubelet{}, false},           // no uid
		{"/var/log/pods/shop_web_uid/nginx/current.log", Kubelet{}, false}, // not N.log
		{"/var/log/containers/web_shop_nginx-abc.log", Kubelet{}, false},   // not a container id
		{"/var/log/containers/web_shop_nginx" + id + ".log", Kubelet{}, false},
		{"/var/log/apache2/access.log", Kubelet{}, false},
		{"", Kubelet{}, false},
	} {
		got, ok := KubeletPath(c.path)
		if ok != c.ok || got != c.want {
			t.Errorf("KubeletPath(%q) = %+v, %v; want %+v, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

// A document that reads the kubelet's fields refuses a store whose path
// is in no kubelet layout, naming the store, the path and the layouts; one
// that reads none takes any path.
func TestAPathInNoKubeletLayoutIsRefusedWhenTheDocumentReadsPod(t *testing.T) {
	x := newExtractor(t, "format apache-combined\nenvelope cri\nwindow 1s\nmetric r count by=namespace,pod\n")
	err := x.Origin(0, "access", "/var/log/apache2/access.log")
	var pe *PathError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "/var/log/apache2/access.log is not in a kubelet layout") || !strings.Contains(err.Error(), "namespace, pod") {
		t.Errorf("Origin = %v", err)
	}
	if err := x.Origin(0, "p", "/var/log/pods/shop_web_u/nginx/0.log"); err != nil {
		t.Errorf("a kubelet path: %v", err)
	}
	y := newExtractor(t, "format apache-combined\nenvelope cri\nwindow 1s\nmetric r count by=stream\n")
	if err := y.Origin(0, "access", "/var/log/apache2/access.log"); err != nil {
		t.Errorf("a document reading no kubelet field: %v", err)
	}
}
