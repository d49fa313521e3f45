// Package mongotest holds the MongoDB adapter's integration tests against
// an in-process FerretDB (SQLite backend). It is a separate module so the
// main module's go.sum does not carry FerretDB's dependencies.
package mongotest
