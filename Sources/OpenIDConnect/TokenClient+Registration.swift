import HTTPKit
import JSONKit
import LinkRouterCore

/// A client registering itself (RFC 7591 §3.1) and deleting itself again
/// (RFC 7592 §2.3): the requests, sent as the RFCs say, and their answers
/// handed to the core's reading (`RegistrationAnswer.read`).
extension TokenClient {
    /// POSTs the client's metadata as JSON (with the initial access token as a Bearer token, where there is one).
    public func register(
        _ registration: ClientRegistrationRequest,
        completion: @escaping (Result<RegistrationAnswer, RouterError>) -> Void
    ) {
        var request = HTTPRequest.postJSON(
            registration.endpoint, JSONParser.encode(registration.document), bearer: registration.initialAccessToken)
        request.maxResponseBytes = Self.maxResponseBytes
        _ = directory.http.send(request) { result in
            switch result {
            case .failure(let error):
                completion(
                    .failure(
                        RouterError(
                            .registrationFailed,
                            "the request to the registration endpoint at \(error.host) "
                                + (error.sent
                                    ? "was sent and not answered (a client may be registered there): " : "failed: ")
                                + error.description)))
            case .success(let response):
                let body = try? JSONParser.parse(response.body)
                completion(
                    .success(
                        RegistrationAnswer.read(status: response.status, body: body, request: registration)))
            }
        }
    }

    /// DELETEs the client at its configuration URL; nil when the provider says it is gone (204, or 200).
    public func deleteRegistration(_ credentials: RegistrationCredentials, completion: @escaping (RouterError?) -> Void)
    {
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer " + credentials.token)
        let request = HTTPRequest(
            method: .delete, url: credentials.uri, headers: headers, maxResponseBytes: Self.maxResponseBytes)
        _ = directory.http.send(request) { result in
            switch result {
            case .failure(let error):
                completion(
                    RouterError(
                        .registrationFailed,
                        "the request to delete it at \(error.host) failed: \(error.description)"))
            case .success(let response) where response.status == 204 || response.status == 200:
                completion(nil)
            case .success(let response):
                let why =
                    response.status == 401
                    ? " (its management token was refused: the client may be deleted already)" : ""
                completion(
                    RouterError(
                        .registrationFailed, "its configuration endpoint answered HTTP \(response.status)\(why)"))
            }
        }
    }
}
