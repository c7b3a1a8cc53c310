// libFuzzer entry point for the parsers of what clients send: JSON bodies (the parser and the strict decoder of
// request types), base64, base64url and hex, DER certificates and PEM files handed to OpenSSL, App Store signed data
// (the JWS, its x5c chain and payload), files of links to import (CSV in each format), the console's forms with a
// file (multipart/form-data), the router's path matching, the User-Agent classifier and device classes, the first
// language of Accept-Language, the trusted-proxy list and X-Forwarded-For addresses, and the timestamped HMAC headers
// of forwarded notifications. Built by scripts/fuzz.sh; a crash, hang or leak fails the run.
import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayImport
import RunwayJSON

let router = Router(routes: [
    "/v1/apps", "/v1/apps/{appId}", "/v1/apps/{appId}/conversion-schema", "/v1/links/{linkId}/qr.svg",
    "/.well-known/skadnetwork/report-attribution/", "/v1/installs/{installId}/attribution", "/{path...}",
].enumerated().map { index, pattern in
    Route(method: .GET, pattern: pattern, operation: Operation(id: "route\(index)", summary: "", tag: "", access: .open, responses: [])) { _, _ in
        HTTPResponse(status: 200)
    }
})

/// App Store signed data checked against a root of our own: the parsing runs as it would on Apple's.
let appStore: AppStoreVerifier? = {
    guard let key = PrivateKey.generateP256(),
          let root = CertificateBuilder.make(commonName: "Fuzz Root", key: key, issuer: nil, serial: 1,
                                             notBefore: Date(timeIntervalSince1970: 1_700_000_000),
                                             notAfter: Date(timeIntervalSince1970: 1_900_000_000), ca: true) else { return nil }
    return AppStoreVerifier(root: root)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    _ = try? JSONParser().parse(bytes)
    let decoder = StrictJSONDecoder()
    _ = try? decoder.decode(CreateLinkRequest.self, from: bytes)
    _ = try? decoder.decode(CreateAppRequest.self, from: bytes)
    _ = try? decoder.decode(EventRequest.self, from: bytes)
    _ = try? decoder.decode(ConversionSchemaRequest.self, from: bytes)
    _ = ByteEncoding.fromBase64(text)
    _ = ByteEncoding.fromBase64url(text)
    _ = ByteEncoding.fromHex(text)
    _ = Certificate(der: bytes)
    _ = AppStoreVerifier.certificate(file: bytes)
    _ = appStore?.verify(text, environment: .sandbox, now: Date(timeIntervalSince1970: 1_790_000_000))
    for format in ImportFormat.allCases { _ = try? format.rows(text) }
    _ = MultipartForm.boundary(contentType: text)
    if let form = MultipartForm(bytes, boundary: "fuzzb") {
        precondition(form.parts.count <= MultipartForm.maxParts && form.parts.allSatisfy { !$0.name.isEmpty }, "a form part without a name")
    }
    _ = router.match(method: "GET", path: text)
    let client = ClientClass(userAgent: text)
    _ = DeviceClass(userAgent: text, client: client)
    _ = AcceptLanguage.first(text, is: Array("fr-ca".utf8))
    _ = AcceptLanguage.first(text, is: Array("en".utf8))
    if let proxies = TrustedProxies(text) { _ = proxies.contains(text) }
    let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    _ = TimestampedHMAC.verify(timestamp: lines.first, signature: lines.count > 1 ? lines[1] : nil, body: bytes, secret: [1, 2, 3],
                               now: 1_790_000_000, maxSkewSeconds: 300)
    return 0
}
