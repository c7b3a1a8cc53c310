import Foundation
@testable import RunwayConsole
@testable import RunwayKit
import Testing

/// The console's chart as markup: whole-number axes, where it starts, partial and single days, and its text
/// alternative. (The browser test draws it in Chromium at 375 pixels.)
@Suite("Console charts")
struct ConsoleChartTests {
    struct Viewer: HTTPRequestLike {
        var language = "en-GB"
        func header(_ name: String) -> String? { name == "Accept-Language" ? language : nil }
        func cookie(_ name: String) -> String? { nil }
    }

    static let format = ConsoleFormat(request: Viewer())
    /// 1 to 30 March 2026.
    static let march = (1...30).map { String(format: "2026-03-%02d", $0) }

    /// The texts of the `tag` elements inside the element that `opening` opens.
    static func texts(_ html: String, _ tag: String, inside opening: String) -> [String] {
        guard let start = html.range(of: opening), let end = html.range(of: closing(opening), range: start.upperBound..<html.endIndex) else { return [] }
        return html[start.upperBound..<end.lowerBound].components(separatedBy: "<\(tag)>").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    static func closing(_ opening: String) -> String { "</" + opening.dropFirst().prefix { $0 != " " && $0 != ">" } + ">" }

    /// The points of each polyline of class `style` (and not a dot), as (x, y) pairs.
    static func lines(_ html: String, _ style: String) -> [[(Double, Double)]] {
        html.components(separatedBy: "<polyline class=\"\(style)").dropFirst().filter { !$0.hasPrefix(" dot") }.map { rest in
            let points = rest.components(separatedBy: "points=\"")[1].prefix { $0 != "\"" }
            return points.split(separator: " ").map { pair in
                let xy = pair.split(separator: ",").map { Double($0)! }
                return (xy[0], xy[1])
            }
        }
    }

    @Test("counts have whole ticks from 0 (never 0.5 clicks), at most five, the top at or above the largest value")
    func wholeTicks() {
        for maximum in Int64(0)...1_000 {
            let ticks = ChartScale(maximum: maximum).ticks
            let step = ticks[1] - ticks[0]
            #expect(ticks[0] == 0 && step >= 1 && ticks.count <= 5 && ticks.last! >= maximum, "\(maximum): \(ticks)")
            #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1 - $0 == step }, "\(maximum): evenly spaced \(ticks)")
            #expect([1, 2, 5].contains(step / Int64(pow(10, Double(Int(log10(Double(step))))))), "\(maximum): a step of 1, 2 or 5 × 10ⁿ, not \(step)")
        }
        #expect(ChartScale(maximum: 1).ticks == [0, 1])
        #expect(ChartScale(maximum: 3).ticks == [0, 1, 2, 3])
        #expect(ChartScale(maximum: 7).ticks == [0, 2, 4, 6, 8])
        #expect(ChartScale(maximum: 0).ticks == [0, 1], "an empty axis still reads 0 to 1")
        #expect(ChartScale(maximum: Int64.max).ticks.last == Int64.max, "no overflow at the end of Int64")
        // Money in cents: ticks at whole dollars.
        #expect(ChartScale(maximum: 1_234, unit: 100).ticks == [0, 500, 1_000, 1_500])
        #expect(ChartScale(maximum: 49, unit: 100).ticks == [0, 100])
    }

    @Test("the labels of a small count are whole numbers, and money is labelled in whole units")
    func labels() {
        let chart = ConsoleChart(title: "Clicks per day", days: Self.march, series: [.init(name: "Clicks", style: "clicks", points: [("2026-03-02", 1), ("2026-03-03", 3)])])
        let html = chart.render(Self.format).html
        #expect(Self.texts(html, "li", inside: "<ul class=\"y-axis\" aria-hidden=\"true\">") == ["3", "2", "1", "0"])
        let money = ConsoleChart(title: "Revenue", days: Self.march, series: [.init(name: "Revenue", style: "revenue", points: [("2026-03-05", 1_234)])],
                                 unit: .money(currency: "EUR")).render(Self.format).html
        #expect(Self.texts(money, "li", inside: "<ul class=\"y-axis\" aria-hidden=\"true\">") == ["€15", "€10", "€5", "€0"])
        #expect(money.contains("<td class=\"num\">€12.34</td>"), "the table has the exact amount")
    }

    @Test("a range that starts before the first data starts the chart at its first day: the first point is that day's value, not a leap from a flat line")
    func firstPointNotASpike() throws {
        // Ten quiet days, then a steady 4 to 6 clicks a day.
        let points: [(day: String, value: Int64)] = (10..<30).map { (day: Self.march[$0], value: Int64(4 + $0 % 3)) }
        let html = ConsoleChart(title: "Clicks per day", days: Self.march, series: [.init(name: "Clicks", style: "clicks", points: points)])
            .render(Self.format).html
        let line = try #require(Self.lines(html, "clicks").first)
        #expect(line.count == 20, "the chart covers the days from the first with data")
        let top = Double(ChartScale(maximum: 6).top)
        #expect(line[0].0 == 0 && abs(line[0].1 - ConsoleChart.height * (1 - 5 / top)) < 0.1, "the first point is the first day's 5 clicks: \(line[0])")
        #expect(line.allSatisfy { $0.1 < ConsoleChart.height - 1 }, "no flat line at 0 before the data")
        #expect(html.contains("Nothing before 11 Mar 2026; the chart starts there."))
        #expect(Self.texts(html, "span", inside: "<div class=\"x-axis\" aria-hidden=\"true\">") == ["11 Mar", "21 Mar", "30 Mar 2026"])
    }

    @Test("the picture is named by a summary and followed by a table of the days with activity; the legend names each series")
    func textAlternative() {
        let html = ConsoleChart(title: "Clicks and installs per day", days: Self.march, series: [
            .init(name: "Clicks", style: "clicks", points: [("2026-03-01", 2), ("2026-03-04", 9)]),
            .init(name: "Installs", style: "installs", points: [("2026-03-04", 1)]),
        ]).render(Self.format).html
        #expect(html.contains("role=\"img\" aria-label=\"Clicks and installs per day, 1 Mar 2026 to 30 Mar 2026. Clicks: 11 in all, most on 4 Mar (9); Installs: 1 in all, most on 4 Mar (1).\""))
        #expect(html.contains("<li><span class=\"swatch clicks\"></span>Clicks</li><li><span class=\"swatch installs\"></span>Installs</li>"))
        #expect(html.contains("<caption>Clicks and installs per day: days with activity (UTC)</caption>"))
        let rows = html.components(separatedBy: "<tr>").dropFirst(2).map { $0.components(separatedBy: "</td>").map { $0.replacingOccurrences(of: "<td class=\"num\">", with: "").replacingOccurrences(of: "<td>", with: "") } }
        #expect(rows.map { Array($0.prefix(3)) } == [["2026-03-04", "9", "1"], ["2026-03-01", "2", "0"]], "newest first, quiet days left out")
    }

    @Test("today is joined by a dashed segment and named; one day alone is a dot at the centre; no data is no chart")
    func partialSingleAndEmpty() throws {
        let days = Array(Self.march.suffix(3))
        let html = ConsoleChart(title: "Clicks per day", days: days, series: [.init(name: "Clicks", style: "clicks", points: days.map { ($0, 3) })],
                                partial: ["2026-03-30": "today, so far"]).render(Self.format).html
        #expect(html.contains("<polyline class=\"clicks\" ") && html.contains("<polyline class=\"clicks partial\" "))
        #expect(try #require(Self.lines(html, "clicks partial").first).count == 2, "only the last segment is dashed")
        #expect(html.contains("Dashed: 30 Mar (today, so far)."))

        let single = ConsoleChart(title: "Clicks per day", days: ["2026-03-30"], series: [.init(name: "Clicks", style: "clicks", points: [("2026-03-30", 4)])])
            .render(Self.format).html
        #expect(single.contains("<polyline class=\"clicks dot\" points=\"359.5,0.0 360.5,0.0\""), "a dot at the centre, at its value")
        #expect(single.contains("<div class=\"x-axis single\" aria-hidden=\"true\"><span>30 Mar 2026</span></div>"))

        let empty = ConsoleChart(title: "Clicks per day", days: Self.march, series: [.init(name: "Clicks", style: "clicks", points: [])])
        #expect(empty.isEmpty && !empty.render(Self.format).html.contains("<svg"))
    }

    @Test("date ranges: 30 days to today by default, presets, a to after today ends today, and what is refused names its field")
    func dateRanges() {
        let today = ConsoleDateRange.today(ISOTime.dayStart("2026-03-30")! + 5_000)
        let standard = ConsoleDateRange.read(from: nil, to: nil, today: today)
        #expect(standard.range?.fromText == "2026-03-01" && standard.range?.toText == "2026-03-30" && standard.range?.preset(today: today) == 30)
        #expect(ConsoleDateRange.last(7, today: today).fromText == "2026-03-24")
        let late = ConsoleDateRange.read(from: "2026-03-20", to: "2026-04-09", today: today).range
        #expect(late?.toText == "2026-03-30" && late?.count == 11 && late?.preset(today: today) == nil)
        #expect(ConsoleDateRange.read(from: "2026-03-30", to: "2026-03-30", today: today).range?.days == ["2026-03-30"])
        #expect(ConsoleDateRange.read(from: "30.03.2026", to: "soon", today: today).problems.map(\.fieldId) == ["from", "to"])
        #expect(ConsoleDateRange.read(from: "2026-03-29", to: "2026-03-28", today: today).problems.map(\.fieldId) == ["from"])
        #expect(ConsoleDateRange.read(from: "2025-03-29", to: "2026-03-30", today: today).problems.first?.message == "A range is at most 366 days; this one is 367")
        #expect(ConsoleDateRange(first: today, last: today).toMilliseconds - ConsoleDateRange(first: today, last: today).fromMilliseconds == 86_400_000,
                "a range covers whole days")
    }
}
