package redis

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// writeCert writes a PEM certificate and key signed by parent (self when nil).
func writeCert(t *testing.T, dir, name string, tmpl *x509.Certificate, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, k
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &k.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(k)
	os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	c, _ := x509.ParseCertificate(der)
	return c, k
}

func TestTLS(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ca, caKey := writeCert(t, dir, "ca", &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "soakd test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil, nil)
	// The server certificate names redis.test only, so verification
	// passes only when tls.server_name is used.
	writeCert(t, dir, "server", &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "redis.test"}, DNSNames: []string{"redis.test"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ca, caKey)
	writeCert(t, dir, "client", &x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "soakd"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, ca, caKey)
	tlsPort, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	startRedis(t, "--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", filepath.Join(dir, "server.crt"),
		"--tls-key-file", filepath.Join(dir, "server.key"), "--tls-ca-cert-file", filepath.Join(dir, "ca.crt"), "--tls-auth-clients", "yes")
	url := "rediss://127.0.0.1:" + strconv.Itoa(tlsPort)
	good := scenarios.TLS{CAFile: filepath.Join(dir, "ca.crt"), CertFile: filepath.Join(dir, "client.crt"), KeyFile: filepath.Join(dir, "client.key"), ServerName: "redis.test"}
	tg := openTarget(t, scenarios.Target{URL: url, TLS: good}, targets.Options{})
	if !tg.fast {
		t.Fatal("a standalone TLS target is not on the fast path: its insert and read below would not test it")
	}
	ctx := ctxT(t)
	if err := tg.Do(ctx, insertReq(1)); err != nil {
		t.Fatal(err)
	}
	if err := tg.Do(ctx, &targets.Request{Op: scenarios.OpRead, KeyNum: 1, Key: key(1)}); err != nil {
		t.Fatal(err)
	}
	// redis:// with tls.enabled works the same.
	en := good
	en.Enabled = true
	openTarget(t, scenarios.Target{URL: "redis://127.0.0.1:" + strconv.Itoa(tlsPort), TLS: en}, targets.Options{})
	// Insecure skips verification (no CA, no server name) but still sends the client cert.
	openTarget(t, scenarios.Target{URL: url, TLS: scenarios.TLS{InsecureSkipVerify: true, CertFile: good.CertFile, KeyFile: good.KeyFile}}, targets.Options{})

	bad := map[string]scenarios.TLS{
		"wrong server name": {CAFile: good.CAFile, CertFile: good.CertFile, KeyFile: good.KeyFile, ServerName: "other.test"},
		"no CA":             {CertFile: good.CertFile, KeyFile: good.KeyFile, ServerName: "redis.test"},
		"no client cert":    {CAFile: good.CAFile, ServerName: "redis.test"},
	}
	for name, o := range bad {
		if tg, err := targets.Open(ctx, scenarios.Target{Kind: "redis", URL: url, TLS: o}, targets.Options{}); err == nil {
			tg.Close()
			t.Errorf("%s: connected", name)
		}
	}
}
