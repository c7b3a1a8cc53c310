/// The value axis of a chart of things that come whole: ticks from 0 at a step of 1, 2 or 5 times a power of ten of
/// `unit` (1 for counts, so never 0.5 clicks; one currency unit in minor units for money), at most `maxTicks` of them,
/// the last at or above the largest value.
struct ChartScale: Equatable, Sendable {
    /// Ascending from 0, evenly spaced, in the values' own units (counts, or minor units of money).
    let ticks: [Int64]

    var top: Int64 { ticks[ticks.count - 1] }

    init(maximum: Int64, unit: Int64 = 1, maxTicks: Int = 5) {
        precondition(unit > 0 && maxTicks >= 2)
        // The largest value in whole units, rounded up: the axis must reach it.
        let whole = max(0, maximum / unit + (maximum % unit > 0 ? 1 : 0))
        guard whole > 0 else {
            ticks = [0, unit]
            return
        }
        let intervals = Int64(maxTicks - 1)
        var magnitude: Int64 = 1
        var chosen: (step: Int64, count: Int64)?
        while chosen == nil {
            for multiple: Int64 in [1, 2, 5] {
                let (step, overflow) = multiple.multipliedReportingOverflow(by: magnitude)
                guard !overflow else { break }
                let count = whole / step + (whole % step > 0 ? 1 : 0)
                if count <= intervals {
                    chosen = (step, count)
                    break
                }
            }
            let (next, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if chosen == nil, overflow { chosen = (whole, 1) }
            magnitude = next
        }
        let (step, count) = chosen ?? (whole, 1)
        // A top past Int64 (values near its end) keeps the largest value itself as the only tick above 0.
        let (stepInUnits, overflow) = step.multipliedReportingOverflow(by: unit)
        guard !overflow, !stepInUnits.multipliedReportingOverflow(by: count).overflow else {
            ticks = [0, maximum]
            return
        }
        ticks = (0...count).map { $0 * stepInUnits }
    }

    /// Where `value` sits, from 0 (the axis' bottom) to 1 (its top).
    func fraction(_ value: Int64) -> Double {
        top > 0 ? min(1, max(0, Double(value) / Double(top))) : 0
    }
}
