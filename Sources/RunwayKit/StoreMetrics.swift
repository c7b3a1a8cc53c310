import RunwayHTTP
import RunwayStore

/// Feeds group-commit sizes and commit latency into the metrics registry.
package struct StoreMetrics: StoreObserver {
    package let metrics: MetricsRegistry

    package init(metrics: MetricsRegistry) {
        self.metrics = metrics
        metrics.declareHistogram("linkrunway_store_write_batch_size", help: "Writes committed together in one transaction.",
                                 buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
        metrics.declareHistogram("linkrunway_store_commit_duration_seconds", help: "Time from BEGIN to durable COMMIT of a batch.",
                                 buckets: MetricsRegistry.latencyBuckets)
    }

    package func didCommit(batchSize: Int, seconds: Double) {
        metrics.observe("linkrunway_store_write_batch_size", Double(batchSize))
        metrics.observe("linkrunway_store_commit_duration_seconds", seconds)
    }
}
