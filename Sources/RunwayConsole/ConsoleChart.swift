import Foundation
import RunwayKit

/// A line chart of daily series, drawn by the server (no script needed): the lines as SVG stretched to the plot, the
/// axis labels as text beside it, in the page's own font size, so they grow with zoom and the reader's text size.
enum ConsoleChart {
    static let width = 720.0, height = 200.0

    static func lines(labels: [String], series: [(name: String, style: String, values: [Double])], title: String) -> Markup {
        let maximum = max(1, series.flatMap(\.values).max() ?? 1)
        let step = labels.count > 1 ? width / Double(labels.count - 1) : 0
        func y(_ value: Double) -> Double { height * (1 - value / maximum) }
        let paths = Markup.join(series.map { item in
            let points = item.values.enumerated().map { String(format: "%.1f,%.1f", Double($0.offset) * step, y($0.element)) }.joined(separator: " ")
            return "<polyline class=\"\(item.style)\" fill=\"none\" stroke-width=\"2\" vector-effect=\"non-scaling-stroke\" points=\"\(points)\"><title>\(item.name)</title></polyline>"
        })
        let fractions = [1, 0.5, 0]
        let grid = Markup.join(fractions.map { fraction in
            "<line class=\"grid\" x1=\"0\" x2=\"\(Int(width))\" y1=\"\(Int(y(maximum * fraction)))\" y2=\"\(Int(y(maximum * fraction)))\" vector-effect=\"non-scaling-stroke\"/>"
        })
        let ticks = Markup.join(fractions.map { "<li>\(tick(maximum * $0))</li>" })
        let legend = Markup.join(series.map { "<li><span class=\"swatch \($0.style)\"></span>\($0.name)</li>" })
        return """
            <figure class="chart">
            <div class="plot">
            <ul class="y-axis" aria-hidden="true">\(ticks)</ul>
            <svg viewBox="0 0 \(Int(width)) \(Int(height))" preserveAspectRatio="none" role="img" aria-label="\(title)">\(grid)\(paths)</svg>
            <div class="x-axis" aria-hidden="true"><span>\(labels.first ?? "")</span><span>\(labels.last ?? "")</span></div>
            </div>
            <figcaption><ul class="legend">\(legend)</ul></figcaption>
            </figure>
            """
    }

    private static func tick(_ value: Double) -> String {
        value >= 1000 ? String(format: "%.1fk", value / 1000) : value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
