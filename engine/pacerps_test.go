package engine

import "testing"

// TestPacerPsLetsOneAtATime: a PacerPs of size 1 lets one pacer keep its
// P until it gives it back; a nil one lets none.
func TestPacerPsLetsOneAtATime(t *testing.T) {
	p := NewPacerPs(1)
	if !p.take() {
		t.Fatal("the first pacer may not keep its P")
	}
	if p.take() {
		t.Fatal("a second pacer kept its P while the first held it")
	}
	p.give()
	if !p.take() {
		t.Fatal("the P given back cannot be kept again")
	}
	var none *PacerPs
	if none.take() {
		t.Fatal("a nil PacerPs let a pacer keep its P")
	}
}
