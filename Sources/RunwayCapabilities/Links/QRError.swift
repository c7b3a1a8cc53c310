import LinkRunwayAPI
import RunwayKit
import RunwayQR

/// What QR codes and their logos refuse: colours scanners cannot read, uploads that are not a logo we accept, and an
/// SVG logo asked of a PNG.
package enum QRError: Refusal, Equatable {
    case colours(QRStyle.Refusal)
    case invalidLogo(String)
    case logoSVGOnly(logoId: String)

    package var detail: ErrorBody.Detail {
        switch self {
        case .colours(let refusal):
            ErrorBody.Detail(code: ErrorCode.lowContrast, message: "fg and bg: \(refusal)", field: "fg")
        case .invalidLogo(let reason):
            .field(ErrorCode.invalidLogo, "data", reason)
        case .logoSVGOnly(let id):
            ErrorBody.Detail(code: ErrorCode.logoSVGOnly,
                             message: "logo \(id) is an SVG, which is drawn only in qr.svg; upload a PNG of it for qr.png", field: "logo")
        }
    }
}
