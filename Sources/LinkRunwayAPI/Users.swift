/// A person who signs in to the console with an email and a password; they see one workspace.
public struct ConsoleUser: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var email: String
    public var createdAt: String

    public init(id: String, workspaceId: String, email: String, createdAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.email = email
        self.createdAt = createdAt
    }
}

extension ConsoleUser: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("User id (usr_…)."), "workspaceId": FieldNote("The one workspace they see."),
        "email": FieldNote("Lower-cased; they sign in with it."), "createdAt": .timestamp,
    ]
}

/// `POST /v1/users`: a console user and the password they sign in with (stored only as a PBKDF2 hash).
public struct CreateConsoleUserRequest: Codable, Sendable {
    public var workspaceId: String?
    public var email: String
    public var password: String

    public init(workspaceId: String?, email: String, password: String) {
        self.workspaceId = workspaceId
        self.email = email
        self.password = password
    }
}

extension CreateConsoleUserRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "workspaceId": .adminWorkspace,
        "email": FieldNote("An email address, unique across the server.", minLength: 3, maxLength: 254),
        "password": FieldNote("12 to 1024 characters; stored only as a PBKDF2-HMAC-SHA256 hash.", minLength: 12, maxLength: 1024),
    ]
}
