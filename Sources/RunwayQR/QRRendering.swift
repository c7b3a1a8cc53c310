/// SVG and PNG pictures of a QR code in a `QRStyle`, scaled to about `pixels` per side.
extension QRCode {
    /// Whole pixels per module so that the picture is at most `pixels` wide (at least 1).
    public func scale(pixels: Int, margin: Int) -> Int { max(1, pixels / (size + 2 * margin)) }

    /// A scalable picture: one path of unit squares in a viewBox of modules, the logo (if any) as an `<image>` of a
    /// `data:` URI over a cleared centre.
    public func svg(pixels: Int, style: QRStyle) -> String {
        let margin = style.margin, side = size + 2 * margin
        let covered = style.logo.map { _ in logoArea } ?? LogoArea.none
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y), !covered.contains(x: x, y: y) else { x += 1; continue }
                var run = 1
                while x + run < size, isDark(x: x + run, y: y), !covered.contains(x: x + run, y: y) { run += 1 }
                path += "M\(x + margin) \(y + margin)h\(run)v1h-\(run)z"
                x += run
            }
        }
        var image = ""
        if let logo = style.logo {
            let frame = covered.frame(of: logo, margin: margin, scale: 1)
            image = """
                <image x="\(frame.x)" y="\(frame.y)" width="\(frame.width)" height="\(frame.height)" preserveAspectRatio="xMidYMid meet" \
                xlink:href="\(logo.dataURI)"/>
                """
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(pixels)" height="\(pixels)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="\(style.background.hex)"/><path fill="\(style.foreground.hex)" d="\(path)"/>\(image)</svg>
            """
    }

    /// An 8-bit PNG: two palette colours, or RGB when a PNG logo is drawn in. An SVG logo cannot be drawn here
    /// (`QRStyle.drawsAsPNG`); calling with one is a programming error.
    public func png(pixels: Int, style: QRStyle) -> [UInt8] {
        precondition(style.drawsAsPNG, "an SVG logo is drawn only in SVG")
        let margin = style.margin, scale = self.scale(pixels: pixels, margin: margin)
        let side = (size + 2 * margin) * scale
        let covered = style.logo == nil ? LogoArea.none : logoArea
        var indices = [UInt8](repeating: 0, count: side * side)
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) && !covered.contains(x: x, y: y) {
                for py in ((y + margin) * scale)..<((y + margin + 1) * scale) {
                    let row = py * side
                    for px in ((x + margin) * scale)..<((x + margin + 1) * scale) { indices[row + px] = 1 }
                }
            }
        }
        guard let logo = style.logo, case .png(let image, _) = logo else {
            return PNGEncoder.indexed(width: side, height: side, palette: [style.background, style.foreground], indices: indices)
        }
        var rgb = [UInt8]()
        rgb.reserveCapacity(side * side * 3)
        for index in indices {
            let color = index == 0 ? style.background : style.foreground
            rgb += [color.red, color.green, color.blue]
        }
        let frame = covered.frame(of: logo, margin: margin, scale: scale)
        LogoCompositor.draw(image, into: &rgb, side: side, frame: frame, background: style.background)
        return PNGEncoder.rgb(width: side, height: side, pixels: rgb)
    }
}

extension QRStyle {
    /// Whether `QRCode.png` can draw this style: an SVG logo is drawn only in SVG pictures.
    public var drawsAsPNG: Bool { logo?.format != .svg }
}
