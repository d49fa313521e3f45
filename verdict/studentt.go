package verdict

import "math"

// studentTQuantile is the p quantile (0 < p < 1) of Student's t with df
// degrees of freedom: closed forms for 1 and 2, otherwise the root of
// the CDF found by bisection.
func studentTQuantile(p float64, df int) float64 {
	switch {
	case df < 1 || !(p > 0 && p < 1):
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -studentTQuantile(1-p, df)
	case df == 1:
		return math.Tan(math.Pi * (p - 0.5))
	case df == 2:
		return (2*p - 1) / math.Sqrt(2*p*(1-p))
	}
	lo, hi := 0.0, 1.0
	for studentTCDF(hi, df) < p {
		hi *= 2
	}
	for i := 0; i < 60; i++ {
		mid := (lo + hi) / 2
		if studentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// studentTCDF is P(T <= x) for x >= 0: 1 - I_{v/(v+x²)}(v/2, 1/2)/2,
// I the regularized incomplete beta function.
func studentTCDF(x float64, df int) float64 {
	v := float64(df)
	return 1 - 0.5*regIncBeta(v/2, 0.5, v/(v+x*x))
}

// regIncBeta is I_x(a, b), from its continued fraction (evaluated by
// the modified Lentz method), using the symmetry I_x(a,b) = 1 -
// I_{1-x}(b,a) where the fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	case x > (a+1)/(a+b+2):
		return 1 - regIncBeta(b, a, 1-x)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log(1-x))
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		for _, num := range [2]float64{
			fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)),
			-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1)),
		} {
			d = 1 + num*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + num/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			f *= c * d
		}
		if math.Abs(c*d-1) < 1e-15 {
			break
		}
	}
	return front * f / a
}
