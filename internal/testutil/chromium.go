package testutil

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Chromium opens the local page in headless Chromium (a missing browser
// fails the test in CI, like NeedTool) and returns the DOM it parsed.
// With height > 0 it also takes a 1000-pixel-wide screenshot of that
// height and returns it decoded; otherwise the image is nil.
func Chromium(t testing.TB, page string, height int) (string, image.Image) {
	t.Helper()
	return ChromiumAt(t, page, 1000, height)
}

// ChromiumAt is Chromium with a window width pixels wide: the DOM is
// dumped after layout at that width (a script in the page may measure
// it), and the screenshot is that wide.
func ChromiumAt(t testing.TB, page string, width, height int) (string, image.Image) {
	t.Helper()
	bin := NeedTool(t, "chromium", "chromium-browser", "google-chrome")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=" + filepath.Join(dir, "profile")}
	size := "--window-size=" + strconv.Itoa(width) + "," + strconv.Itoa(max(height, 800))
	dom, err := exec.CommandContext(ctx, bin, append(args, size, "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	if height <= 0 {
		return string(dom), nil
	}
	shot := filepath.Join(dir, "page.png")
	cmd := exec.CommandContext(ctx, bin, append(args, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--screenshot="+shot, "file://"+page)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(dom), img
}

// Pixels counts img's pixels within tol of the colour rgb (8 bits per
// channel).
func Pixels(img image.Image, rgb [3]uint32, tol uint32) int {
	near := func(v, want uint32) bool { return v+tol >= want && v <= want+tol }
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, rgb[0]) && near(g>>8, rgb[1]) && near(bl>>8, rgb[2]) {
				n++
			}
		}
	}
	return n
}
