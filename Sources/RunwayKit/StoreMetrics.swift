import RunwayHTTP
import RunwayStore

/// Feeds group-commit sizes and commit latency into the metrics registry.
package struct StoreMetrics: StoreObserver {
    package let metrics: MetricsRegistry

    package init(metrics: MetricsRegistry) {
        self.metrics = metrics
        metrics.declareHistogram("linkrunway_store_write_batch_size", help: "Writes committed together in one transaction.",
                                 buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
        metrics.declareHistogram("linkrunway_store_commit_duration_seconds", help: "Time from BEGIN to COMMIT of a batch.",
                                 buckets: MetricsRegistry.latencyBuckets)
        metrics.declareHistogram("linkrunway_store_sync_duration_seconds",
                                 help: "Time to sync SQLite's WAL, after which the writes committed before it are answered.",
                                 buckets: MetricsRegistry.latencyBuckets)
        metrics.declareHistogram("linkrunway_store_writes_per_sync", help: "Writes made durable by one sync of SQLite's WAL.",
                                 buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024])
    }

    package func didCommit(batchSize: Int, seconds: Double) {
        metrics.observe("linkrunway_store_write_batch_size", Double(batchSize))
        metrics.observe("linkrunway_store_commit_duration_seconds", seconds)
    }

    package func didSync(writes: Int, seconds: Double) {
        metrics.observe("linkrunway_store_sync_duration_seconds", seconds)
        metrics.observe("linkrunway_store_writes_per_sync", Double(writes))
    }
}
