package kafka

import "sync"

// brokerMessageMax is the broker's default message.max.bytes, the limit of
// a topic whose own setting could not be read.
const brokerMessageMax = 1048588

// topicLimits holds each known topic's max.message.bytes. The producer's
// batch cap per topic comes from it (ProducerBatchMaxBytesFn): the broker
// refuses a batch larger than the topic's limit after compression, and the
// producer caps batches before compression, so a cap above the limit fails
// a table whose rows compress poorly with MESSAGE_TOO_LARGE.
type topicLimits struct {
	mu sync.Mutex
	m  map[string]int32
}

func newTopicLimits() *topicLimits { return &topicLimits{m: map[string]int32{}} }

func (l *topicLimits) get(topic string) (int32, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, ok := l.m[topic]
	return n, ok
}

func (l *topicLimits) set(topic string, n int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[topic] = n
}

// batchMax is the producer's batch cap for topic. franz-go asks once per
// partition, when it first produces to it: after ensureTopic learnt the
// limit. franz-go accepts [512, 1 GiB].
func (l *topicLimits) batchMax(topic string) int32 {
	n, ok := l.get(topic)
	if !ok {
		n = brokerMessageMax
	}
	return min(max(n, 512), 1<<30)
}
