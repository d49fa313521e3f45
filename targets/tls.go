package targets

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/soakd/soakd/regfile"
	"github.com/soakd/soakd/scenarios"
)

// TLSConfig builds a client TLS config from a scenario's tls block: CA
// file, client certificate and key, server name (defaultServerName when
// the block names none) and insecure_skip_verify. Every adapter uses it.
func TLSConfig(c scenarios.TLS, defaultServerName string) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: c.ServerName, InsecureSkipVerify: c.InsecureSkipVerify, MinVersion: tls.VersionTLS12}
	if cfg.ServerName == "" {
		cfg.ServerName = defaultServerName
	}
	if c.CAFile != "" {
		pem, err := regfile.ReadFileLimit(c.CAFile, 16<<20) // a FIFO is refused, not waited on; a CA bundle is well under 16 MiB
		if err != nil {
			return nil, fmt.Errorf("tls.ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls.ca_file %s holds no PEM certificate", c.CAFile)
		}
		cfg.RootCAs = pool
	}
	if c.CertFile != "" || c.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("tls.cert_file/key_file: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
