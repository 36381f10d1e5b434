// Package report turns benchmark measurements into the console table, the
// JSON file and an SVG bar chart.
package report
