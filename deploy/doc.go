// Package deploy holds what sluice ships for running it in production
// rather than Go code: Prometheus alert rules (prometheus/), a Grafana
// dashboard (grafana/), and the tests that check them against promtool and
// a real Prometheus scraping running sluice processes (docs/monitoring.md).
package deploy
