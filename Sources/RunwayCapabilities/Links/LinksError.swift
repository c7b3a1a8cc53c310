import LinkRunwayAPI
import RunwayKit

/// What the links capability refuses: domains taken, unproven or still in use, paths taken, links that are not there
/// or no longer open.
package enum LinksError: Refusal, Equatable {
    case hostnameTaken(String)
    /// The DNS TXT record that proves control was not among the `found` records.
    case domainUnverified(recordName: String, recordValue: String, found: Int)
    /// DNS gave no answer for the proving record, so control could be neither proven nor refused.
    case domainUnanswered(recordName: String)
    case domainInUse(String)
    case noLinkDomain
    case pathTaken(domain: String, path: String)
    /// No link answers a URL; `url` is named in the message when the caller may know it.
    case linkNotFound(url: String?)
    case linkExpired(String)
    /// The body of an import is not `{"links": [...]}` with 1 to 500 rows.
    case notAnImportBatch
    /// An import names `domain/path` again; `firstIndex` is the row that named it first.
    case pathRepeated(domain: String, path: String, firstIndex: Int)
    /// An import's row names a link that exists with other values in `fields`.
    case linkDiffers(domain: String, path: String, fields: [String])

    package var detail: ErrorBody.Detail {
        switch self {
        case .hostnameTaken(let hostname):
            ErrorBody.Detail(code: ErrorCode.hostnameTaken, message: "\(hostname) is already a link domain")
        case .domainUnverified(let name, let value, let found):
            ErrorBody.Detail(code: ErrorCode.domainUnverified,
                             message: "no TXT record \(name) with the value \(value) yet (\(found) TXT records found)")
        case .domainUnanswered(let name):
            ErrorBody.Detail(code: ErrorCode.domainUnverified, message: "DNS gave no answer for \(name); try again")
        case .domainInUse(let hostname):
            ErrorBody.Detail(code: ErrorCode.domainInUse, message: "\(hostname) still has links")
        case .noLinkDomain:
            ErrorBody.Detail(code: ErrorCode.noLinkDomain, message: "the workspace has no link domain yet; add one with POST /v1/domains")
        case .pathTaken(let domain, let path):
            ErrorBody.Detail(code: ErrorCode.pathTaken, message: "\(domain)/\(path) is taken")
        case .linkNotFound(let url):
            ErrorBody.Detail(code: ErrorCode.linkNotFound, message: url.map { "no link answers \($0)" } ?? "no link answers this URL")
        case .linkExpired(let message):
            ErrorBody.Detail(code: ErrorCode.linkExpired, message: message)
        case .notAnImportBatch:
            ErrorBody.Detail(code: ErrorCode.invalidField,
                             message: "the body must be {\"links\": [...]} with 1 to \(ImportLinksRequest.batchLimit) links", field: "links")
        case .pathRepeated(let domain, let path, let firstIndex):
            ErrorBody.Detail(code: ErrorCode.pathTaken, message: "\(domain)/\(path) is also links[\(firstIndex)] of this import", field: "path")
        case .linkDiffers(let domain, let path, let fields):
            ErrorBody.Detail(code: ErrorCode.pathTaken,
                             message: "\(domain)/\(path) exists with another \(fields.joined(separator: ", ")); import with update to change it")
        }
    }

    package var undecided: Bool {
        if case .domainUnanswered = self { return true }
        return false
    }
}
