/// `/.well-known/apple-app-site-association` of a link domain: Apple's file that tells iOS which paths each app opens.
public struct AppleAppSiteAssociation: Codable, Sendable, Equatable {
    public struct AppLinks: Codable, Sendable, Equatable {
        public var details: [Detail]
    }

    /// The paths of the apps listed.
    public struct Detail: Codable, Sendable, Equatable {
        /// `<team id>.<bundle id>`.
        public var appIDs: [String]
        public var components: [Component]
    }

    /// A path pattern an app opens, or one it does not.
    public struct Component: Codable, Sendable, Equatable {
        public var path: String
        public var exclude: Bool?
        public var caseSensitive: Bool?

        enum CodingKeys: String, CodingKey {
            case path = "/"
            case exclude, caseSensitive
        }
    }

    public var applinks: AppLinks
}

extension AppleAppSiteAssociation: DescribedWireType {
    public static let summary: String? = "Apple's file of the paths each app opens (universal links)."
    public static let notes: [String: FieldNote] = ["applinks": FieldNote("The apps and their paths.")]
}

extension AppleAppSiteAssociation.AppLinks: DescribedWireType {
    public static let componentName: String? = nil
    public static let notes: [String: FieldNote] = ["details": .list(of: nil, "One entry per app.")]
}

extension AppleAppSiteAssociation.Detail: DescribedWireType {
    public static let componentName: String? = nil
    public static let notes: [String: FieldNote] = [
        "appIDs": .list(of: nil, "The app, as its team id and bundle id."),
        "components": .list(of: nil, "Its link paths in order; the first that matches decides."),
    ]
}

extension AppleAppSiteAssociation.Component: DescribedWireType {
    public static let componentName: String? = nil
    public static let notes: [String: FieldNote] = [
        "/": FieldNote("A path pattern (* matches any characters)."),
        "exclude": FieldNote("Paths the app does not open."),
        "caseSensitive": FieldNote("False: the path matches without regard to case."),
    ]
}
