/// The square of modules at the centre of a code that a logo covers. Its modules are not drawn; error correction H
/// (30% of the codewords recoverable) restores them, so the square stays well under that: a quarter of the symbol's
/// side, about 6% of its area, far from the finder patterns in the corners. Larger squares (from a third of the side)
/// stopped zbar reading long links (version 13) in our tests, though the codewords could in theory be restored.
struct LogoArea {
    /// The share of the symbol's side the square takes.
    static let sideFraction = 0.25

    let origin: Int
    let side: Int

    static let none = LogoArea(origin: 0, side: 0)

    func contains(x: Int, y: Int) -> Bool {
        x >= origin && y >= origin && x < origin + side && y < origin + side
    }

    /// Where the logo is drawn: inside the square, one module in from its edge, keeping the logo's proportions, in
    /// units of `scale` per module (1: modules) from the picture's corner.
    func frame(of logo: QRLogoImage, margin: Int, scale: Int) -> LogoFrame {
        let inner = Double((side - 2) * scale)
        let (width, height) = logo.width >= logo.height
            ? (inner, inner * logo.height / logo.width) : (inner * logo.width / logo.height, inner)
        let centre = Double((margin + origin) * scale) + Double(side * scale) / 2
        return LogoFrame(x: centre - width / 2, y: centre - height / 2, width: width, height: height)
    }
}

/// A rectangle in the picture's units.
struct LogoFrame {
    let x: Double, y: Double, width: Double, height: Double
}

extension QRCode {
    /// The centre square a logo covers: the same parity as the symbol's side, so it sits centred on whole modules.
    var logoArea: LogoArea {
        var side = Int(Double(size) * LogoArea.sideFraction)
        if side % 2 != size % 2 { side -= 1 }
        return LogoArea(origin: (size - side) / 2, side: side)
    }
}

/// Draws a PNG logo into RGB rows: each target pixel is the average of the logo pixels it covers (or the nearest one
/// when enlarging), blended over the background by its alpha.
enum LogoCompositor {
    static func draw(_ image: RGBAImage, into rgb: inout [UInt8], side: Int, frame: LogoFrame, background: QRColor) {
        let left = Int(frame.x.rounded()), top = Int(frame.y.rounded())
        let width = max(1, Int(frame.width.rounded())), height = max(1, Int(frame.height.rounded()))
        let back = [Int(background.red), Int(background.green), Int(background.blue)]
        for ty in 0..<height where top + ty >= 0 && top + ty < side {
            let sy0 = ty * image.height / height, sy1 = max(sy0 + 1, (ty + 1) * image.height / height)
            for tx in 0..<width where left + tx >= 0 && left + tx < side {
                let sx0 = tx * image.width / width, sx1 = max(sx0 + 1, (tx + 1) * image.width / width)
                var sum = [0, 0, 0], alpha = 0
                for sy in sy0..<sy1 {
                    for sx in sx0..<sx1 {
                        let at = (sy * image.width + sx) * 4
                        let a = Int(image.pixels[at + 3])
                        for c in 0..<3 { sum[c] += Int(image.pixels[at + c]) * a }
                        alpha += a
                    }
                }
                let count = (sy1 - sy0) * (sx1 - sx0)
                let meanAlpha = alpha / count
                let target = ((top + ty) * side + left + tx) * 3
                for c in 0..<3 { rgb[target + c] = UInt8((sum[c] / count + back[c] * (255 - meanAlpha)) / 255) }
            }
        }
    }
}
