import Foundation
import GeoCore
import Providers
import Regions

/// How `geoquery serve` runs: where it listens, what the map page shows, and the bounds on
/// the work one request may cause (OWASP API4: unrestricted resource consumption).
public struct ServiceConfiguration: Sendable {
    /// Address to listen on (default loopback only; put a proxy in front for the world).
    public var host = "127.0.0.1"
    /// Port (0 picks a free one).
    public var port = 8080
    /// The scheme and authority clients reach the service at (`https://api.example.org`), which
    /// the URLs in answers are built on; nil builds them on each request's `Host`.
    public var publicURL: String?
    /// Tile URL template of the map page, `{z}/{x}/{y}` (and optionally `{s}`).
    public var tilesURL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    /// Attribution shown with the tiles (HTML).
    public var tilesAttribution = "&copy; <a href=\"https://www.openstreetmap.org/copyright\">OpenStreetMap</a> contributors"
    /// Where Debian's `libjs-leaflet` installs Leaflet; served under `/leaflet/`.
    public var leafletDirectory = "/usr/share/javascript/leaflet"
    /// Country names and continents (GeoNames `countries.csv`), for answers that name them.
    public var countries = CountryTable()
    /// Country boundaries and time zones, which give each new or moved gem its country,
    /// continent and time zone as an import gives places theirs; nil leaves gems without.
    public var regions: RegionLocator?
    /// The country boundaries file (`countries.geojson.gz`) the map page draws, simplified, when
    /// its tiles do not load (`GET /map/countries.geojson`); nil answers that route 404.
    public var boundariesFile: String?
    /// Web pages on other origins that may call the API from a browser (CORS); none by default.
    public var allowedOrigins = AllowedOrigins.none
    /// Places per page when the request gives no `limit`.
    public var defaultPageSize = 50
    /// The largest `limit` (use cursors for more).
    public var maximumPageSize = 500
    /// The largest `k` of `nearest`.
    public var maximumNearestCount = 500
    /// The most stops a route may have.
    public var maximumRouteStops = 1_000
    /// The longest `deadline` a route request may ask for.
    public var maximumRouteTime: Duration = .seconds(5)
    /// The largest request body, in bytes (413 beyond).
    public var maximumBodyBytes = 1 << 20
    /// How long any one request may take before it is answered 503.
    public var requestTimeout: Duration = .seconds(15)
    /// How long a connection may stay open with no request under way before the service closes
    /// it: a client that connects and sends nothing, or trickles a request head byte by byte,
    /// holds a connection no longer than this. Longer than the 60 s most proxies and load
    /// balancers keep an idle connection to their upstream, so they close first and never send
    /// on a connection the service is closing.
    public var idleTimeout: Duration = .seconds(75)
    /// How old the in-memory city list of `/v1/cities` may get before it is rebuilt from the
    /// index (in the background; answers meanwhile come from the old list).
    public var cityDirectoryRefresh: Duration = .seconds(600)
    /// bcrypt's work factor for passwords (11 or more; each step doubles the time).
    public var passwordCost: UInt8 = 11
    /// Failed sign-ins per account per 15 minutes before 429.
    public var signInAttemptsPerAccount = 10
    /// Sign-in attempts per client address within ``signInAddressWindow`` before 429.
    public var signInAttemptsPerAddress = 30
    /// The sliding window of ``signInAttemptsPerAddress``: a minute.
    public var signInAddressWindow: Duration = .seconds(60)
    /// New accounts per client address per hour before 429 (each costs a bcrypt hash).
    public var signUpsPerAddress = 10
    /// Things one account may create an hour — gems, photos, favourites, reports, friend requests,
    /// itineraries, trips, share links — before 429 (a budget that refills steadily, so a
    /// burst may spend it at once). Nil for no limit.
    public var creationsPerAccountPerHour: Int? = 300
    /// The most friends one account may have (every signed-in query carries the asker's
    /// friends, for friends-only gems); accepting a friendship past it is refused (409). Nil
    /// for no limit.
    public var friendsPerAccount: Int? = 5_000
    /// Usernames whose accounts may read reports and hide, restore or clear gems
    /// (`/v1/moderation/…`): granted to the accounts they name when
    /// ``GeoQueryService/grantModerators()`` runs (at start-up), never to a later account of
    /// the same name.
    public var moderators: Set<String> = []
    /// The largest radius `/v1/gems/near` searches (the Hidden Gem app shows nothing beyond
    /// 20 miles); larger radii are capped, and the answer says so.
    public var gemRadiusCap = Distance(uncheckedMeters: 32_186.88)  // 20 mi
    /// Where uploaded photos are stored (content-addressed files); nil refuses uploads.
    public var photoDirectory: String?
    /// The largest photo, in bytes (413 beyond, without reading the rest).
    public var maximumPhotoBytes = 10 << 20
    /// The bytes of photos one account may store (those it uploaded first while it shows them:
    /// a photo someone stored already costs nothing); a new photo past it is refused (403).
    /// Nil for no limit.
    public var photoStorageLimit: Int? = 1_000_000_000
    /// How old (seconds) a photo that nothing uses must be before the sweep removes it: far
    /// longer than any upload takes between storing a photo and attaching it.
    public var abandonedPhotoAge: TimeInterval = 3_600
    /// How long (seconds) a notification is kept, read or not: 90 days.
    public var notificationRetention: TimeInterval = 90 * 86_400
    /// The key webhook secrets are derived from (``Accounts/WebhookSigner``); nil sends no
    /// webhooks (the webhook routes answer 503). Every process of a deployment needs the same key.
    public var webhookKey: [UInt8]?
    /// Whether webhooks may be delivered to loopback, private, link-local and other non-public
    /// addresses (off: a user could otherwise make the service call into its own network).
    public var webhooksMayReachPrivateAddresses = false
    /// Pauses before each retry of a failed delivery (then it is given up and logged).
    public var webhookRetryDelays: [Duration] = [.seconds(1), .seconds(5), .seconds(30), .seconds(120)]
    /// Provider keys, base URLs and transport for `/v1/search` and `/v1/weather`.
    public var providers = ProviderSettings()

    public init() {}
}
