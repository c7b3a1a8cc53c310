// libFuzzer entry point for what a QR logo upload goes through: the PNG decoder (chunks, IHDR, inflating, the five
// filters, every colour type and depth, palettes and transparency; also fed the input with its CRCs made right, and
// as the header and rows of a PNG built around it), the SVG reader and sanitiser, the logo checks of
// POST /v1/qr-logos, and drawing an accepted logo into a code (SVG always, PNG for a PNG logo). Besides crashes it
// checks what the server relies on: a decoded PNG has exactly width × height pixels and reads back the same from the
// PNG we write; a sanitised SVG is accepted again as it is; a logo's size is finite and positive, so storing it
// cannot trap. Built by scripts/fuzz.sh together with Sources/RunwayQR; a crash, hang or leak fails the run.

/// A code to draw accepted logos into (made once: libqrencode is not what is fuzzed here).
let code = try! QRCode(text: "https://go.example.com/summer", correction: .high)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The file as it is, with its chunks' CRCs made right (so that mutations get past them), and a PNG made of the
    // input as an IHDR and raw rows (so that every header meets every filter and sample layout).
    for png in [bytes, withCRCs(bytes), madePNG(bytes)] {
        guard let image = try? PNGDecoder.decode(png, maxSide: QRLogoImage.maxSide) else { continue }
        precondition(image.pixels.count == image.width * image.height * 4, "decoded pixels do not fill the picture")
        let again = try? PNGDecoder.decode(PNGEncoder.rgba(width: image.width, height: image.height, pixels: image.pixels), maxSide: QRLogoImage.maxSide)
        precondition(again == image, "the PNG we write does not read back as the pixels decoded")
    }
    if let text = String(validating: bytes, as: UTF8.self) {
        var reader = SVGReader(text)
        while (try? reader.next()) != nil {}
        if let svg = try? SVGSanitizer.sanitize(text) {
            precondition((try? SVGSanitizer.sanitize(svg.markup)) == svg, "a sanitised SVG is not accepted again as it is")
        }
    }
    for format in QRLogoImage.Format.allCases {
        guard let logo = try? QRLogoImage(upload: bytes, format: format) else { continue }
        precondition(logo.wholeWidth >= 1 && logo.wholeHeight >= 1, "a logo's listed size is not positive")
        precondition((try? QRLogoImage(upload: logo.stored, format: format)) == logo, "a stored logo does not read back the same")
        guard let style = try? QRStyle(logo: logo) else { continue }
        _ = code.svg(pixels: 64, style: style)
        if style.drawsAsPNG { _ = code.png(pixels: 64, style: style) }
    }
    return 0
}

/// `bytes` with every whole chunk's CRC written as it should be.
func withCRCs(_ bytes: [UInt8]) -> [UInt8] {
    var out = bytes, offset = 8
    while offset + 12 <= out.count {
        let length = Int(PNGDecoder.be32(out, offset))
        guard length <= out.count - offset - 12 else { break }
        let crc = PNGEncoder.be32(PNGEncoder.crc32(Array(out[(offset + 4)..<(offset + 8 + length)])))
        out.replaceSubrange((offset + 8 + length)..<(offset + 12 + length), with: crc)
        offset += 12 + length
    }
    return out
}

/// A PNG whose IHDR is the input's first 13 bytes (its sides kept small) and whose image data is the rest, deflated;
/// a palette and a transparency chunk when the colour type wants them.
func madePNG(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.count > 13 else { return [] }
    var header = Array(bytes.prefix(13))
    header.replaceSubrange(0..<8, with: PNGEncoder.be32(UInt32(header[3] % 64)) + PNGEncoder.be32(UInt32(header[7] % 64)))
    var file = PNGDecoder.signature + PNGEncoder.chunk("IHDR", header)
    if header[9] == 3 { file += PNGEncoder.chunk("PLTE", (0..<48).map { UInt8($0 * 5) }) }
    if header[9] != 6 && header[9] != 4 { file += PNGEncoder.chunk("tRNS", Array(bytes.suffix(6))) }
    return file + PNGEncoder.chunk("IDAT", PNGEncoder.deflate(Array(bytes.dropFirst(13)))) + PNGEncoder.chunk("IEND", [])
}
