import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

extension Operation {
    private static let environmentQuery = QueryParameterDoc("environment", "production (default) or sandbox: Apple's environment.")

    static let retentionRealtime = Operation(
        id: "retentionRealtime",
        summary: "Apple's Get Retention Message call: the message for where the subscriber came from, within Apple's 700 ms (204: none, Apple shows its default)",
        tag: "Retention messages", access: .open, requestSchema: .of(AppStoreNotificationRequest.self),
        responses: [ResponseDoc(status: 200, description: "Apple's RealtimeResponseBody: {message} or {alternateProduct}.", contentType: "application/json"),
                    ResponseDoc(status: 204, description: "No message: Apple shows the default it has for the product and locale.")],
        maxBodyBytes: 64 * 1024, errors: [400, 404, 503], rateLimited: true)

    static let getRetentionRules = Operation(
        id: "getRetentionRules", summary: "The app's retention rules and fallback", tag: "Retention messages", access: Access.management,
        responses: [.json(200, RetentionRuleSet.self, "The rules, in order.")])

    static let setRetentionRules = Operation(
        id: "setRetentionRules", summary: "Replace the app's retention rules: the first rule whose conditions hold answers", tag: "Retention messages",
        access: Access.management, requestSchema: .of(RetentionRuleSet.self), responses: [.json(200, RetentionRuleSet.self, "The rules as stored.")],
        maxBodyBytes: 256 * 1024, idempotent: true)

    static let listRetentionMessages = Operation(
        id: "listRetentionMessages", summary: "The app's retention messages at Apple (Get Message List), with the text of those uploaded here",
        tag: "Retention messages", access: Access.management, responses: [.json(200, RetentionMessageList.self, "Apple's list and ours.")],
        query: [environmentQuery], errors: [409, 502])

    static let createRetentionMessage = Operation(
        id: "createRetentionMessage", summary: "Upload a retention message to Apple (Upload Message); Apple reviews it before showing it",
        tag: "Retention messages", access: Access.management, requestSchema: .of(CreateRetentionMessageRequest.self),
        responses: [.json(201, RetentionMessage.self, "Uploaded, awaiting Apple's review.")], maxBodyBytes: 8 * 1024, errors: [409, 422, 502],
        idempotent: true)

    static let deleteRetentionMessage = Operation(
        id: "deleteRetentionMessage", summary: "Delete a retention message at Apple (Delete Message)", tag: "Retention messages",
        access: Access.management, responses: [ResponseDoc(status: 204, description: "Deleted.")], query: [environmentQuery], errors: [409, 422, 502])

    static let setRetentionDefaultMessage = Operation(
        id: "setRetentionDefaultMessage",
        summary: "Set (or, without messageId, remove) the message Apple shows for a product and locale when the realtime answer fails",
        tag: "Retention messages", access: Access.management, requestSchema: .of(RetentionDefaultMessageRequest.self),
        responses: [ResponseDoc(status: 204, description: "Set or removed.")], maxBodyBytes: 4 * 1024, errors: [409, 422, 502], idempotent: true)

    static let setRetentionRealtimeURL = Operation(
        id: "setRetentionRealtimeURL", summary: "Tell Apple where to ask for retention messages (Configure Realtime URL)", tag: "Retention messages",
        access: Access.management, requestSchema: .of(RetentionRealtimeURLRequest.self),
        responses: [.json(200, RetentionRealtimeURL.self, "What Apple now calls.")], maxBodyBytes: 4 * 1024, errors: [409, 422, 502], idempotent: true)

    static let getRetentionRealtimeURL = Operation(
        id: "getRetentionRealtimeURL", summary: "Where Apple asks for retention messages (Get Realtime URL)", tag: "Retention messages",
        access: Access.management, responses: [.json(200, RetentionRealtimeURL.self, "The URL, or none.")], query: [environmentQuery],
        errors: [409, 502])

    static let startRetentionPerformanceTest = Operation(
        id: "startRetentionPerformanceTest", summary: "Ask Apple's sandbox to test the realtime URL's speed (Initiate Performance Test)",
        tag: "Retention messages", access: Access.management, requestSchema: .of(RetentionPerformanceTestRequest.self),
        responses: [.json(201, RetentionPerformanceTest.self, "The test, as Apple runs it.")], maxBodyBytes: 4 * 1024, errors: [409, 422, 502])

    static let getRetentionPerformanceTest = Operation(
        id: "getRetentionPerformanceTest", summary: "What Apple's performance test found (Get Performance Test Results)", tag: "Retention messages",
        access: Access.management, responses: [.json(200, RetentionPerformanceTest.self, "Its result and response times.")], errors: [409, 422, 502])

    static let retentionReport = Operation(
        id: "retentionReport", summary: "Which retention message was shown how often, and what the subscribers did after", tag: "Retention messages",
        access: Access.management, responses: [.json(200, RetentionMessageReport.self, "One row per rule and message.")],
        query: [QueryParameterDoc("from", "Start, ISO 8601 (default 30 days before to)."), QueryParameterDoc("to", "End, ISO 8601 (default now).")])
}
