import Foundation
import RunwayKit

/// A chart of daily values, drawn by the server (no script needed) with its text alternative: the picture is an image
/// named by a summary of each series, and a table after it lists every day with activity. The lines are SVG stretched
/// to the plot; the axis labels are text in the page's font size beside it, so they grow with zoom and the reader's
/// text size, and the plot narrows to a phone's width.
///
/// What it draws, so that a first day never stands up as a lone spike:
/// - whole UTC days only, as the caller's range gives them (a range starting partway into a day would count part of
///   that day, or all of it for what is counted by day, beside whole days);
/// - from the first day with any value: a range that starts before the first data would draw a flat line and then a
///   leap at the data's first day;
/// - days not counted whole (`partial`: today so far, the day a link was made) joined by dashed segments, and named;
/// - one day alone as points at the centre, and no chart at all when nothing has a value.
/// Values axes have whole ticks (`ChartScale`): counts in ones, money in whole currency units. A value below 0 (a day
/// of net refunds) is drawn at 0; the table gives it as it is.
struct ConsoleChart: Sendable {
    enum Unit: Sendable, Equatable {
        case count
        /// Money in minor units of an ISO 4217 currency.
        case money(currency: String)
    }

    struct Series: Sendable {
        let name: String
        /// The stylesheet's class for its colour: clicks, installs, events or revenue.
        let style: String
        let points: [(day: String, value: Int64)]
    }

    static let width = 720.0, height = 200.0

    let title: String
    /// Every day of the range, oldest first, as `2026-03-01` (UTC).
    let days: [String]
    let series: [Series]
    var unit: Unit = .count
    /// Days not counted whole, each with why (`today, so far`).
    var partial: [String: String] = [:]

    /// A chart of net revenue per day for each currency the rows have, in that currency's units, by currency code;
    /// `subject` goes into each title (`Revenue in EUR of this link per day`).
    static func revenue(_ rows: [(day: String, amounts: [String: Int64])], days: [String], partial: [String: String],
                        subject: String = "") -> [ConsoleChart] {
        Set(rows.flatMap { $0.amounts.keys }).sorted().map { currency in
            ConsoleChart(title: "Revenue in \(currency)\(subject) per day", days: days,
                         series: [.init(name: "Revenue (\(currency))", style: "revenue", points: rows.compactMap { row in row.amounts[currency].map { (row.day, $0) } })],
                         unit: .money(currency: currency), partial: partial)
        }
    }

    /// Each series' value by day.
    private var values: [[String: Int64]] {
        series.map { Dictionary($0.points.map { ($0.day, $0.value) }, uniquingKeysWith: +) }
    }

    /// The days drawn: from the first that has a value to the end of the range; none when no day has one.
    var shownDays: [String] {
        let values = self.values
        guard let first = days.firstIndex(where: { day in values.contains { ($0[day] ?? 0) != 0 } }) else { return [] }
        return Array(days[first...])  // trap-safe: first is an index of days
    }

    var isEmpty: Bool { shownDays.isEmpty }

    var scale: ChartScale {
        let shown = shownDays
        let largest = values.flatMap { series in shown.map { series[$0] ?? 0 } }.max() ?? 0
        return ChartScale(maximum: largest, unit: unitSize)
    }

    private var unitSize: Int64 {
        switch unit {
        case .count: 1
        case .money(let currency): ConsoleFormat.minorUnits(currency)
        }
    }

    func render(_ format: ConsoleFormat) -> Markup {
        let shown = shownDays
        guard !shown.isEmpty else { return ConsoleLayout.empty("Nothing to chart in this range.") }
        let scale = self.scale, values = self.values
        let rows = values.map { series in shown.map { series[$0] ?? 0 } }
        func x(_ index: Int) -> Double { shown.count > 1 ? Double(index) * Self.width / Double(shown.count - 1) : Self.width / 2 }
        func y(_ value: Int64) -> Double { Self.height * (1 - scale.fraction(value)) }
        func point(_ index: Int, _ value: Int64) -> String { String(format: "%.1f,%.1f", x(index), y(value)) }
        let grid = Markup.join(scale.ticks.map { tick in
            "<line class=\"grid\" x1=\"0\" x2=\"\(Int(Self.width))\" y1=\"\(Int(y(tick).rounded()))\" y2=\"\(Int(y(tick).rounded()))\" vector-effect=\"non-scaling-stroke\"/>"
        })
        let lines = Markup.join(zip(series, rows).map { item, row in
            guard shown.count > 1 else {
                // One day: a short stroke with round ends, which the unscaled stroke draws as a dot.
                let at = y(row[0])
                return "<polyline class=\"\(item.style) dot\" points=\"\(String(format: "%.1f,%.1f %.1f,%.1f", x(0) - 0.5, at, x(0) + 0.5, at))\" fill=\"none\" stroke-width=\"10\" stroke-linecap=\"round\" vector-effect=\"non-scaling-stroke\"/>"
            }
            return Markup.join(runs(shown).map { run in
                let points = (run.from...run.to).map { point($0, row[$0]) }.joined(separator: " ")
                return "<polyline class=\"\(item.style)\(run.dashed ? " partial" : "")\" fill=\"none\" stroke-width=\"2\" vector-effect=\"non-scaling-stroke\" points=\"\(points)\"/>"
            })
        })
        let ticks = Markup.join(scale.ticks.reversed().map { "<li>\(label($0, format, whole: true))</li>" })
        let legend = Markup.join(series.map { "<li><span class=\"swatch \($0.style)\"></span>\($0.name)</li>" })
        return """
            <figure class="chart">
            <div class="plot">
            <ul class="y-axis" aria-hidden="true">\(ticks)</ul>
            <svg viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" preserveAspectRatio="none" role="img" aria-label="\(summary(shown, rows, format))">\(grid)\(lines)</svg>
            <div class="x-axis\(shown.count == 1 ? " single" : "")" aria-hidden="true">\(axisDays(shown, format))</div>
            </div>
            <figcaption><span class="chart-title">\(title)</span><ul class="legend">\(legend)</ul>\(notes(shown, format))</figcaption>
            </figure>
            \(table(shown, rows, format))
            """
    }

    /// Consecutive segments between shown days, split where they start or stop leading to a partial day.
    private func runs(_ shown: [String]) -> [(dashed: Bool, from: Int, to: Int)] {
        var runs: [(dashed: Bool, from: Int, to: Int)] = []
        for index in 0..<(shown.count - 1) {
            let dashed = partial[shown[index]] != nil || partial[shown[index + 1]] != nil
            if let last = runs.last, last.dashed == dashed { runs[runs.count - 1].to = index + 1 } else { runs.append((dashed, index, index + 1)) }
        }
        return runs
    }

    private func label(_ value: Int64, _ format: ConsoleFormat, whole: Bool = false) -> String {
        switch unit {
        case .count: format.number(value)
        case .money(let currency): format.money(value, currency, whole: whole)
        }
    }

    /// The first, middle and last day under the plot (the year on the last, and on all when the range spans two).
    private func axisDays(_ shown: [String], _ format: ConsoleFormat) -> Markup {
        let picked = shown.count < 3 ? Array(Set([shown[0], shown[shown.count - 1]])).sorted() : [shown[0], shown[shown.count / 2], shown[shown.count - 1]]
        let years = shown[0].prefix(4) != shown[shown.count - 1].prefix(4)
        return Markup.join(picked.map { day in "<span>\(format.day(day, year: years || day == picked.last))</span>" })
    }

    /// The picture's name: the title, the days, and each series' total and busiest day.
    private func summary(_ shown: [String], _ rows: [[Int64]], _ format: ConsoleFormat) -> String {
        let range = shown.count == 1 ? format.day(shown[0], year: true)
            : "\(format.day(shown[0], year: true)) to \(format.day(shown[shown.count - 1], year: true))"
        let parts = zip(series, rows).map { item, row -> String in
            let total = row.reduce(0, +)
            guard let busiest = row.indices.max(by: { row[$0] < row[$1] }), row[busiest] > 0 else { return "\(item.name): none" }
            return "\(item.name): \(label(total, format)) in all, most on \(format.day(shown[busiest])) (\(label(row[busiest], format)))"
        }
        return "\(title), \(range). " + parts.joined(separator: "; ") + "."
    }

    /// What a reader should know about the days drawn: where the chart starts, and which days are not whole.
    private func notes(_ shown: [String], _ format: ConsoleFormat) -> Markup {
        var notes: [String] = []
        if shown[0] != days[0] { notes.append("Nothing before \(format.day(shown[0], year: true)); the chart starts there.") }
        let partial = shown.compactMap { day in self.partial[day].map { "\(format.day(day)) (\($0))" } }
        if !partial.isEmpty { notes.append((shown.count > 1 ? "Dashed: " : "Not a whole day: ") + partial.joined(separator: ", ") + ".") }
        return notes.isEmpty ? "" : "<p class=\"hint\">\(notes.joined(separator: " "))</p>"
    }

    /// Every shown day with a value, newest first, one column a series.
    private func table(_ shown: [String], _ rows: [[Int64]], _ format: ConsoleFormat) -> Markup {
        let lines: [[Markup]] = shown.indices.reversed().compactMap { index in
            guard rows.contains(where: { $0[index] != 0 }) else { return nil }
            return ["\(shown[index])"] + rows.map { "\(label($0[index], format))" }
        }
        return ConsoleLayout.table(["day"] + series.map(\.name), lines, caption: "\(title): days with activity (UTC)", numericFrom: 1)
    }
}
