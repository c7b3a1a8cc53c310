import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The links capability's rows as it reads them (`RowDecoder`: each property names its column), besides `LinkRecord`,
/// and the wire forms made from them.
enum LinkRows {
    /// A link domain.
    struct Domain: Decodable {
        let id: String
        let workspaceId: String
        let hostname: String
        let createdAt: Int64
        let verifiedAt: Int64?
        let verificationToken: String?

        static let columns = "id, workspace_id, hostname, created_at, verified_at, verification_token"

        var wire: LinkDomain {
            let verified = verifiedAt != nil
            return LinkDomain(id: id, workspaceId: workspaceId, hostname: hostname, createdAt: Timestamp.iso(createdAt), verified: verified,
                              verification: verified ? nil : verificationToken.map { LinkRows.verification(hostname: hostname, token: $0) })
        }
    }

    static func verification(hostname: String, token: String) -> DomainVerification {
        DomainVerification(recordName: "_linkrunway-challenge." + hostname, recordValue: "linkrunway-verification=" + token)
    }

    /// A referral code.
    struct ReferralCodeRow: Decodable {
        let code: String
        let appId: String
        let installId: String?
        let userId: String?
        let createdAt: Int64

        /// Named, so a column added later cannot change a prepared statement's shape under a server still running the
        /// previous release (PostgreSQL refuses a cached plan whose result changed).
        static let columns = "code, app_id, install_id, user_id, created_at"

        var wire: ReferralCode { ReferralCode(code: code, appId: appId, installId: installId, userId: userId, createdAt: Timestamp.iso(createdAt)) }
    }

    /// A visit (a click or an open) as the install's data export shows it, and as its link's figures counted it.
    struct Visit: Decodable {
        let token: String
        let kind: String
        let linkId: String
        let platform: String
        let osVersion: String?
        let referrerHost: String?
        let variant: String?
        let country: String?
        let qr: Bool
        let inAppBrowser: String?
        let createdAt: Int64

        static let columns = "token, kind, link_id, platform, os_version, referrer_host, variant, country, qr, in_app_browser, created_at"

        var wire: StoredVisit {
            StoredVisit(token: token, kind: kind, linkId: linkId, platform: platform, osVersion: osVersion, referrerHost: referrerHost,
                        variant: variant, country: country, qr: qr ? true : nil, inAppBrowser: inAppBrowser, createdAt: Timestamp.iso(createdAt))
        }

        /// What the visit added to its link's figures.
        var click: ClickRollup.Click {
            ClickRollup.Click(kind: kind, linkId: linkId, day: createdAt / LinkRollup.day,
                              facts: LinkRollup.Facts(platform: platform, osVersion: osVersion, variant: variant, qr: qr,
                                                      place: .init(country: country, referrer: referrerHost, inAppBrowser: inAppBrowser)))
        }
    }

    /// A link's preview fields.
    struct Preview: Decodable {
        let previewTitle: String?
        let previewDescription: String?
        let previewImageURL: String?

        var wire: LinkPreview { LinkPreview(title: previewTitle, description: previewDescription, imageUrl: previewImageURL) }
    }

    /// A link an app opens, for a domain's association file.
    struct AssociatedPath: Decodable {
        let teamId: String
        let bundleId: String
        let platforms: String
        let path: String
    }

    /// A QR logo, without its image.
    struct Logo: Decodable {
        let id: String
        let workspaceId: String
        let name: String
        let format: String
        let width: Int
        let height: Int
        let bytes: Int
        let createdAt: Int64

        static let columns = "id, workspace_id, name, format, width, height, length(image) AS bytes, created_at"

        var wire: QRLogo {
            QRLogo(id: id, workspaceId: workspaceId, name: name, format: format, width: width, height: height, bytes: bytes,
                   createdAt: Timestamp.iso(createdAt))
        }
    }

    /// A QR logo's image with what serving it takes.
    struct LogoImage: Decodable {
        let workspaceId: String
        let format: String
        let image: [UInt8]
    }

    struct Id: Decodable {
        let id: String
    }

    struct Hostname: Decodable {
        let hostname: String
    }

    struct WorkspaceOf: Decodable {
        let workspaceId: String
    }

    struct Reserved: Decodable {
        let reserved: Int64
    }

    /// One lane's amount of a figure.
    struct LaneAmount: Decodable {
        let amount: Int64
    }
}
