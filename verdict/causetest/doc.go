// Package causetest proves verdict.Attribute's cause labels on causes
// injected into real runs against a real redis-server (tests only; see
// docs/verdicts.md, "Whose slowness was it").
package causetest
