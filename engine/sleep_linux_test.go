package engine

func addFallback(m map[string]func() pacerSleeper) {
	m["locked thread"] = func() pacerSleeper { return newThreadSleeper() }
}
