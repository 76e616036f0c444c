/// The last "surprise me" city each signed-in user was shown, kept where every server of a
/// deployment sees it, so that the next draw differs whichever server makes it.
/// Implementations: `SQLiteUserStore` and `PostGISUserStore`; ``RandomCityMemoryConformance``
/// (in the conformance suite) states the behaviour.
public protocol RandomCityMemory: Sendable {
    /// The id of the city `username` was last shown, nil when none was.
    func lastRandomCity(of username: String) async throws -> String?
    /// Remembers `cityID` as the city `username` was last shown (in place of the one before).
    func rememberRandomCity(_ cityID: String, for username: String) async throws
}
