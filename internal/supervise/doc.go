// Package supervise is the one replication loop of sluice, shared by
// replicate (binlog → target) and the way back (internal/reverse,
// pgoutput → MySQL): Loop runs one attempt after another and decides, from
// each command's classification of the error, whether to stop, wait and
// try again within --target-retry, or end on a takeover; Command is what
// both commands share around it (memory limit, gauge, status card); Run
// supervises one attempt's source stream (internal/source) and apply until
// they stop; Reachable is the gauge that reads 0 while a lost server is
// being retried; Card, Publish and Reading are the status page's card.
package supervise
