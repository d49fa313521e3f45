package embedded

// deque is a list with O(1) pushes and pops at both ends: the elements
// are front reversed, then back. LPUSH onto a list of 200k pre-filled
// elements must not copy them all.
type deque struct {
	front [][]byte // front[len-1] is the head
	back  [][]byte
}

func (d *deque) len() int { return len(d.front) + len(d.back) }

func (d *deque) pushFront(e []byte) { d.front = append(d.front, e) }

func (d *deque) pushBack(e []byte) { d.back = append(d.back, e) }

// popFront removes the head; the deque must not be empty.
func (d *deque) popFront() []byte {
	if n := len(d.front); n > 0 {
		e := d.front[n-1]
		d.front[n-1] = nil
		d.front = d.front[:n-1]
		return e
	}
	e := d.back[0]
	d.back[0] = nil
	d.back = d.back[1:]
	return e
}

// popBack removes the tail; the deque must not be empty.
func (d *deque) popBack() []byte {
	if n := len(d.back); n > 0 {
		e := d.back[n-1]
		d.back[n-1] = nil
		d.back = d.back[:n-1]
		return e
	}
	e := d.front[0]
	d.front[0] = nil
	d.front = d.front[1:]
	return e
}

// at returns element i (0 = head).
func (d *deque) at(i int) []byte {
	if i < len(d.front) {
		return d.front[len(d.front)-1-i]
	}
	return d.back[i-len(d.front)]
}
