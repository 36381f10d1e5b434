package report

import (
	"fmt"
	"math"
	"os"
	"strings"
)

var colors = map[string]string{"dorisgo": "#1f77b4", "duckdb": "#ff7f0e", "gms": "#2ca02c"}

// WriteSVG draws grouped bars (log scale, ms) per query and engine.
func (r *Report) WriteSVG(path string) error {
	const barW, gap, left, top, height = 7.0, 8.0, 60.0, 40.0, 300.0
	groupW := barW*float64(len(Engines)) + gap
	width := left + groupW*float64(len(r.Queries)) + 20
	maxV := 1.0
	for _, q := range r.Queries {
		for _, e := range Engines {
			if run, ok := q.Engines[e]; ok && run.Error == "" {
				maxV = math.Max(maxV, run.Median)
			}
		}
	}
	top10 := math.Pow(10, math.Ceil(math.Log10(maxV)))
	y := func(v float64) float64 { // log scale from 0.1 ms to top10
		v = math.Max(v, 0.1)
		return top + height*(1-(math.Log10(v)+1)/(math.Log10(top10)+1))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="10">`+"\n", width, top+height+70)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="18" font-size="14">SF %g %s: median query time, ms (log scale); ✕ = error or timeout</text>`+"\n", left, r.SF, r.Mode)
	for p := -1.0; p <= math.Log10(top10); p++ {
		v := math.Pow(10, p)
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.0f" y="%.1f" text-anchor="end">%g</text>`+"\n",
			left, width-20, y(v), y(v), left-4, y(v)+3, v)
	}
	for i, q := range r.Queries {
		x0 := left + float64(i)*groupW
		for j, e := range Engines {
			run, ok := q.Engines[e]
			if !ok {
				continue
			}
			x := x0 + float64(j)*barW
			if run.Error != "" {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">✕</text>`+"\n", x, top+height-2, colors[e])
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s %s: %.1f ms</title></rect>`+"\n",
				x, y(run.Median), barW-1, top+height-y(run.Median), colors[e], q.Suite, q.Query, e, run.Median)
		}
		fmt.Fprintf(&b, `<text transform="translate(%.1f,%.0f) rotate(-60)" text-anchor="end">%s %s</text>`+"\n", x0+barW, top+height+12, q.Suite, q.Query)
	}
	for j, e := range Engines {
		fmt.Fprintf(&b, `<rect x="%.0f" y="24" width="10" height="10" fill="%s"/><text x="%.0f" y="33">%s</text>`+"\n",
			width-260+float64(j)*80, colors[e], width-246+float64(j)*80, e)
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
