/// What a browser brought back to a login's callback, read once for every
/// kind of login: `code`, `error`, `resume_uri` (a parameter given twice
/// reads as absent, and then matches nothing), never a code and an error
/// together (RFC 6749 §4.1.2).
struct CallbackResponse {
    let code: String?
    let error: String?
    let resume: String?

    init(_ query: QueryParameters) throws(RouterError) {
        code = (try? query.single("code")) ?? nil
        error = (try? query.single("error")) ?? nil
        resume = (try? query.single("resume_uri")) ?? nil
        if code != nil && error != nil {
            throw .invalid(
                "the callback carries both code and error; a response has one or the other (RFC 6749 §4.1.2)")
        }
    }
}
