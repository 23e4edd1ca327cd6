package serve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/timbertally/timbertally/lib/internal/command"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir and
// returns a pool trusting it.
func selfSigned(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tgserve test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

func TestTheWebConfigFileGivesTLSAndBasicAuthAndRefusesTheRest(t *testing.T) {
	dir := t.TempDir()
	pool := selfSigned(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "web.yml")
	os.WriteFile(cfg, []byte("tls_server_config:\n  cert_file: "+filepath.Join(dir, "tls.crt")+"\n  key_file: "+filepath.Join(dir, "tls.key")+
		"\nbasic_auth_users:\n  prometheus: "+string(hash)+"\n"), 0o600)
	base, _ := started(t, &Options{Stores: []string{newStore(t, "web", firstGroups)}, WebConfig: cfg})
	secure := strings.Replace(base, "http://", "https://", 1)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	get := func(url, user, pass string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := client.Do(req)
		if err != nil {
			return -1
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		what, url, user, pass string
		want                  int
	}{
		{"the right user over TLS", secure + "/metrics", "prometheus", "s3cret", 200},
		{"no credentials", secure + "/metrics", "", "", 401},
		{"a wrong password", secure + "/metrics", "prometheus", "guess", 401},
		{"another user", secure + "/metrics", "root", "s3cret", 401},
	} {
		if got := get(c.url, c.user, c.pass); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
	// Plain http to a TLS port is no answer of /metrics.
	if got := get(base+"/metrics", "prometheus", "s3cret"); got == 200 {
		t.Errorf("plain http got %d: the metrics were served without TLS", got)
	}
}

func TestAWebConfigFileThatDoesNotParseIsAUsageErrorNamingTheFormat(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "web.yml")
	os.WriteFile(cfg, []byte("basic_auth_users: [not, a, map]\n"), 0o600)
	err := Run(t.Context(), &Options{Stores: []string{newStore(t, "web", firstGroups)}, WebConfig: cfg, Listen: "127.0.0.1:0", Stderr: os.Stderr})
	if !command.IsUsage(err) || !strings.Contains(err.Error(), "basic_auth_users") {
		t.Errorf("got %v, want a usage error naming the file's format", err)
	}
}
