/// Who reopens the login when the Vipps/MobilePay app returns with `resume_uri`.
public enum ResumeMode: String, Sendable, CaseIterable {
    /// The daemon reopens `resume_uri` in the browser that began the login (its cookies carry it).
    case browser
    /// The owner gets a unicast `ResumeRequested` signal and reopens it itself.
    case client
    /// Nobody: the app keeps its first browser window open.
    case none
}
