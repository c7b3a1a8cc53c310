import Foundation
import Synchronization

/// Counters and histograms rendered in the Prometheus text format. Label values must be bounded (route patterns,
/// status codes), never raw paths or ids.
public final class MetricsRegistry: Sendable {
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct Family {
        let help: String
        let isHistogram: Bool
        let buckets: [Double]
        var counters: [String: CounterSeries] = [:]
        var histograms: [String: HistogramSeries] = [:]
    }

    private let families = Mutex<[String: Family]>([:])

    public init() {}

    /// Declares a counter; incrementing an undeclared name is a programming error.
    public func declareCounter(_ name: String, help: String) {
        families.withLock { $0[name] = $0[name] ?? Family(help: help, isHistogram: false, buckets: []) }
    }

    /// Declares a histogram with upper bounds `buckets` (ascending).
    public func declareHistogram(_ name: String, help: String, buckets: [Double]) {
        families.withLock { $0[name] = $0[name] ?? Family(help: help, isHistogram: true, buckets: buckets) }
    }

    public func increment(_ name: String, labels: [(String, String)] = [], by amount: Double = 1) {
        counter(name, labels: labels)?.add(amount)
    }

    public func observe(_ name: String, labels: [(String, String)] = [], _ value: Double) {
        histogram(name, labels: labels)?.observe(value)
    }

    /// One labelled series of a declared counter, to keep and add to without looking it up again (nil when the
    /// counter was not declared).
    public func counter(_ name: String, labels: [(String, String)] = []) -> CounterSeries? {
        let key = Self.labelText(labels)
        return families.withLock { families -> CounterSeries? in
            guard var family = families[name], !family.isHistogram else { return nil }
            if let series = family.counters[key] { return series }
            let series = CounterSeries()
            family.counters[key] = series
            families[name] = family
            return series
        }
    }

    /// One labelled series of a declared histogram (nil when it was not declared).
    public func histogram(_ name: String, labels: [(String, String)] = []) -> HistogramSeries? {
        let key = Self.labelText(labels)
        return families.withLock { families -> HistogramSeries? in
            guard var family = families[name], family.isHistogram else { return nil }
            if let series = family.histograms[key] { return series }
            let series = HistogramSeries(buckets: family.buckets)
            family.histograms[key] = series
            families[name] = family
            return series
        }
    }

    /// The current value of a counter (for tests and health checks).
    public func counterValue(_ name: String, labels: [(String, String)] = []) -> Double {
        families.withLock { $0[name]?.counters[Self.labelText(labels)] }?.value ?? 0
    }

    /// How many observations a histogram has.
    public func histogramCount(_ name: String, labels: [(String, String)] = []) -> UInt64 {
        families.withLock { $0[name]?.histograms[Self.labelText(labels)] }?.snapshot.count ?? 0
    }

    /// Everything, in the Prometheus text exposition format 0.0.4.
    public func render() -> String {
        let snapshot = families.withLock { $0 }
        var out = ""
        for (name, family) in snapshot.sorted(by: { $0.key < $1.key }) {
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.isHistogram ? "histogram" : "counter")\n"
            if family.isHistogram {
                for (key, series) in family.histograms.sorted(by: { $0.key < $1.key }) {
                    let h = series.snapshot
                    var cumulative: UInt64 = 0
                    for (i, bound) in family.buckets.enumerated() {
                        cumulative += h.counts[i]
                        out += "\(name)_bucket\(Self.withLabel(key, "le", Self.number(bound))) \(cumulative)\n"
                    }
                    out += "\(name)_bucket\(Self.withLabel(key, "le", "+Inf")) \(h.count)\n"
                    out += "\(name)_sum\(Self.braced(key)) \(Self.number(h.sum))\n"
                    out += "\(name)_count\(Self.braced(key)) \(h.count)\n"
                }
            } else {
                for (key, series) in family.counters.sorted(by: { $0.key < $1.key }) {
                    out += "\(name)\(Self.braced(key)) \(Self.number(series.value))\n"
                }
            }
        }
        return out
    }

    static func labelText(_ labels: [(String, String)]) -> String {
        labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",")
    }

    static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func braced(_ key: String) -> String { key.isEmpty ? "" : "{\(key)}" }

    static func withLabel(_ key: String, _ name: String, _ value: String) -> String {
        key.isEmpty ? "{\(name)=\"\(value)\"}" : "{\(key),\(name)=\"\(value)\"}"
    }

    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }
}

/// One labelled series of a counter: adding to it takes only its own lock.
public final class CounterSeries: Sendable {
    private let total = Mutex<Double>(0)

    public func add(_ amount: Double = 1) { total.withLock { $0 += amount } }

    public var value: Double { total.withLock { $0 } }
}

/// One labelled series of a histogram: observing takes only its own lock and allocates nothing.
public final class HistogramSeries: Sendable {
    struct State {
        var counts: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0
    }

    let buckets: [Double]
    private let state: Mutex<State>

    init(buckets: [Double]) {
        self.buckets = buckets
        state = Mutex(State(counts: Array(repeating: 0, count: buckets.count)))
    }

    public func observe(_ value: Double) {
        let bucket = buckets.firstIndex(where: { value <= $0 })
        state.withLock { state in
            if let bucket { state.counts[bucket] += 1 }
            state.sum += value
            state.count += 1
        }
    }

    var snapshot: State { state.withLock { $0 } }
}

/// Counts requests by route and status and records their latency.
public struct MetricsMiddleware: Middleware {
    let metrics: RouteMetrics

    public init(metrics: RouteMetrics) { self.metrics = metrics }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        let response = try await next(request, context)
        metrics.record(route: context.route, status: response.status, startedAt: context.startedAt)
        return response
    }
}

/// Requests answered by route and status, and their latency: the series of each route and status seen are kept, so
/// a request costs a lookup by two integers, not labels built and looked up by text.
public final class RouteMetrics: Sendable {
    let registry: MetricsRegistry
    private let known = Mutex<[SeriesKey: Series]>([:])

    struct SeriesKey: Hashable {
        let route: ObjectIdentifier?
        let status: Int
    }

    struct Series {
        let requests: CounterSeries?
        let duration: HistogramSeries?
    }

    public init(_ registry: MetricsRegistry) {
        self.registry = registry
        registry.declareCounter("linkrunway_http_requests_total", help: "HTTP requests answered, by route and status.")
        registry.declareHistogram("linkrunway_http_request_duration_seconds", help: "Time to answer a request, by route.",
                                  buckets: MetricsRegistry.latencyBuckets)
    }

    /// Counts one answer of `route` (nil: no route matched) with `status`, begun at `startedAt`.
    public func record(route: Route?, status: Int, startedAt: ContinuousClock.Instant) {
        let elapsed = startedAt.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let found = series(route: route, status: status)
        found.requests?.add()
        found.duration?.observe(seconds)
    }

    private func series(route: Route?, status: Int) -> Series {
        let key = SeriesKey(route: route.map(ObjectIdentifier.init), status: status)
        if let known = known.withLock({ $0[key] }) { return known }
        let label = route?.label ?? "unmatched"
        let made = Series(requests: registry.counter("linkrunway_http_requests_total", labels: [("route", label), ("status", String(status))]),
                          duration: registry.histogram("linkrunway_http_request_duration_seconds", labels: [("route", label)]))
        known.withLock { $0[key] = made }
        return made
    }
}
