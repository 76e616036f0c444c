import Accounts
import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import PlaceModel
import PlaceQuery
import Providers

/// The HTTP service: the places API v1, `/healthz`, `/metrics`, `/openapi.json` and the map page
/// at `/`, over any ``PlaceIndex``.
///
/// Tests build the very same application in-process (`HummingbirdTesting`) and live; `geoquery
/// serve` runs it. Handlers never block: store calls run on the store's own thread pool, and
/// routing on a worker pool (``defaultWorkers`` unless one is passed).
public struct GeoQueryService: Sendable {
    /// The imported places.
    public let index: any PlaceIndex
    /// What people make (accounts, gems, favourites, ratings, photos); nil serves places only,
    /// and the account and gem routes answer 503.
    public let userData: (any UserDataStore)?
    /// Sign-up, sign-in and sessions over ``userData``.
    public let accounts: AccountService?
    /// Imported places and gems as one index; each query's ``PlaceFilter/viewer`` decides the
    /// gems it lists.
    let searchIndex: any PlaceIndex
    public let configuration: ServiceConfiguration
    public let logger: Logger
    let workers: NIOThreadPool
    let healthCache = CountCache()
    /// The map page's base map, made on first use.
    let baseMap = BaseMapCache()
    let cities: CityDirectory
    /// Pictures: Wikimedia Commons, and Pixabay and Unsplash when their keys are set; answers
    /// cached as each source's terms allow.
    let imageSearch: ImageSearch
    /// Edits of one gem or one account from this process, one after another.
    let editLocks = EditLocks()
    /// The accounts granted moderation, resolved from ``ServiceConfiguration/moderators``.
    let moderatorRoster = ModeratorRoster()
    /// The country codes a `country` filter accepts (any two letters when no table is loaded).
    let knownCountries: Set<String>?
    /// Each account's budget of creations (``ServiceConfiguration/creationsPerAccountPerHour``).
    let creationLimiter: (any BudgetLimiter)?

    /// - Parameters:
    ///   - index: the places (and later gems) the API answers from.
    ///   - workers: the pool for CPU-heavy work; by default one pool for the whole process
    ///     (``defaultWorkers``), however many services it builds.
    ///   - userData: accounts, gems, favourites and photos; nil for a places-only service.
    public init(
        index: any PlaceIndex, userData: (any UserDataStore)? = nil,
        configuration: ServiceConfiguration = ServiceConfiguration(),
        logger: Logger = Logger(label: "geoquery.serve"), workers: NIOThreadPool? = nil
    ) {
        self.index = index
        self.userData = userData
        searchIndex = userData.map { MergedPlaceIndex.combining(index, $0) } ?? index
        self.configuration = configuration
        self.logger = logger
        cities = CityDirectory(maximumAge: configuration.cityDirectoryRefresh)
        imageSearch = ImageSearch(settings: configuration.providers)
        knownCountries = configuration.countries.byCode.isEmpty ? nil : Set(configuration.countries.byCode.keys)
        self.workers = workers ?? Self.defaultWorkers
        // Spent in the store (every server on one database spends from one budget); without
        // a store nothing is created, and the budget is this process's.
        creationLimiter = configuration.creationsPerAccountPerHour.map { capacity -> any BudgetLimiter in
            if let userData { return SharedBudget(store: userData, scope: "creations", capacity: capacity, period: .seconds(3_600)) }
            return TokenBucketLimiter(capacity: capacity, period: .seconds(3_600))
        }
        // The attempts are counted in the store, so every server on one database counts the
        // same ones (and a restart forgets none).
        accounts = userData.map { store in
            AccountService(
                store: store, pool: workers ?? Self.defaultWorkers, passwordCost: configuration.passwordCost,
                accountLimiter: SharedAttemptLimiter(
                    store: store, scope: "sign-in account",
                    limit: configuration.signInAttemptsPerAccount, window: .seconds(900)),
                addressLimiter: SharedAttemptLimiter(
                    store: store, scope: "sign-in address",
                    limit: configuration.signInAttemptsPerAddress, window: configuration.signInAddressWindow),
                signUpLimiter: SharedAttemptLimiter(
                    store: store, scope: "sign-up address",
                    limit: configuration.signUpsPerAddress, window: .seconds(3_600)))
        }
    }

    /// The process's pool for routing: one thread per core, started on first use.
    public static let defaultWorkers: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(1, ProcessInfo.processInfo.activeProcessorCount))
        pool.start()
        return pool
    }()

    /// The router with every route, and the table of what it answers.
    public func makeRouter() -> (Router<ServiceRequestContext>, RouteTable) {
        // HEAD answers as GET does, without the body (RFC 9110 §9.3.2: load balancers and
        // link checkers send it).
        let router = Router(context: ServiceRequestContext.self, options: .autoGenerateHeadEndpoints)
        var table = RouteTable()
        router.add(middleware: AccessLogMiddleware(logger: logger))
        router.add(middleware: SecurityHeadersMiddleware())
        // Filled in below; the middlewares read the finished table.
        let tableBox = RouteTableBox()
        router.add(middleware: RequestMetricsMiddleware(routes: tableBox))
        if configuration.allowedOrigins != .none {
            router.add(middleware: CrossOriginMiddleware(allowed: configuration.allowedOrigins))
        }
        router.add(middleware: ProblemMiddleware(routes: tableBox, logger: logger))
        router.add(middleware: PublicURLMiddleware(configured: configuration.publicURL))

        addPlaceRoutes(to: router, table: &table)
        addAccountRoutes(to: router, table: &table)
        addSessionRoutes(to: router, table: &table)
        addModerationRoutes(to: router, table: &table)
        addBlockRoutes(to: router, table: &table)
        addFollowRoutes(to: router, table: &table)
        addGemRoutes(to: router, table: &table)
        addFavoriteRoutes(to: router, table: &table)
        addPhotoRoutes(to: router, table: &table)
        addItineraryRoutes(to: router, table: &table)
        addTripRoutes(to: router, table: &table)
        addSocialRoutes(to: router, table: &table)
        addExportRoute(to: router, table: &table)
        addWebhookRoutes(to: router, table: &table)
        addProviderRoutes(to: router, table: &table)
        addImageRoutes(to: router, table: &table)
        addRandomCityRoute(to: router, table: &table)
        addSaveFavoriteRoute(to: router, table: &table)
        addPopularRoute(to: router, table: &table)
        addSuggestedItineraryRoute(to: router, table: &table)
        addRouteRoute(to: router, table: &table)
        addOperationalRoutes(to: router, table: &table)
        addMapPage(to: router, table: &table)
        tableBox.table = table
        return (router, table)
    }

    /// The application, listening where the configuration says.
    public func makeApplication(
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    )
        -> some ApplicationProtocol
    {
        let (router, _) = makeRouter()
        return Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: TimeAmount.nanoseconds(configuration.idleTimeout.wholeNanoseconds))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "GeoQuery"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Runs `body` on the worker pool (blocking work: files, photos).
    func onWorker<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await workers.runIfActive(body)
    }

    /// Runs CPU-heavy work one request asks for (routes, suggested itineraries, busy calendars,
    /// meeting times) on the background pool, whose threads run at a lower scheduling priority
    /// (nice 10): when the cores are contended, the service's queries go first, and a client
    /// that sends maximal bodies in a loop slows itself, not everyone's near query. The work
    /// still takes every idle core. A request whose work has not finished within its time is
    /// answered 503 with `Retry-After` by its route's bound.
    func onBackgroundWorker<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await Self.backgroundWorkers.runIfActive {
            BackgroundPriority.lowerThisThread()
            return try body()
        }
    }

    /// The pool of ``onBackgroundWorker(_:)``: one thread per core, started on first use.
    static let backgroundWorkers: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(1, ProcessInfo.processInfo.activeProcessorCount))
        pool.start()
        return pool
    }()
}

/// The route table, set once after the router is built and read by the error middleware.
final class RouteTableBox: @unchecked Sendable {
    // @unchecked Sendable: written once while the router is built, before the server starts
    // and before any request can read it; read-only afterwards.
    var table = RouteTable()
}

/// The place count for `/healthz` and `/metrics`, refreshed at most every 10 s (a count over a
/// million rows is not free, and health checks come often).
///
/// One count runs at a time: while it runs, callers get the previous count rather than start
/// their own (32 clients whose cached count expired together used to run 32 counts of a
/// million rows at once on PostgreSQL, and waited up to a second for them). A count that fails
/// forgets the previous one, so the next caller waits for a fresh count and sees the failure
/// (a health check must not report a dead database healthy from an old count).
final class CountCache: @unchecked Sendable {
    // @unchecked Sendable: `value`, `time` and `refresh` are touched only under `lock`.
    private let lock = NSLock()
    private var value: Int?
    private var time = ContinuousClock.now
    private var refresh: Task<Int, any Error>?
    private let maximumAge: Duration

    init(maximumAge: Duration = .seconds(10)) { self.maximumAge = maximumAge }

    private enum Answer {
        case known(Int)
        case awaiting(Task<Int, any Error>)
    }

    func count(_ index: any PlaceIndex) async throws -> Int {
        let answer: Answer = lock.withLock {
            if let value, ContinuousClock.now - time < maximumAge { return .known(value) }
            let task =
                refresh
                ?? Task { [self] in
                    do {
                        let fresh = try await index.count(source: nil)
                        lock.withLock {
                            value = fresh
                            time = ContinuousClock.now
                            refresh = nil
                        }
                        return fresh
                    } catch {
                        lock.withLock {
                            value = nil
                            refresh = nil
                        }
                        throw error
                    }
                }
            refresh = task
            return value.map(Answer.known) ?? .awaiting(task)
        }
        switch answer {
        case .known(let count): return count
        case .awaiting(let task): return try await task.value
        }
    }
}

extension Response {
    /// A JSON (or other) body from bytes.
    static func bytes(
        _ bytes: [UInt8], contentType: String = "application/json", status: HTTPResponse.Status = .ok,
        headers extra: HTTPFields = [:]
    ) -> Response {
        var headers = extra
        headers[.contentType] = contentType
        var buffer = ByteBuffer()
        buffer.writeBytes(bytes)
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }

    /// A body from a writer's bytes, copied once into the response buffer.
    static func writer(_ json: JSONWriter, contentType: String = "application/json", headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = contentType
        let buffer = json.withUnsafeBytes { ByteBuffer(bytes: $0) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: buffer))
    }

    static func json(_ value: OrderedJSON, status: HTTPResponse.Status = .ok) -> Response {
        var writer = JSONWriter(pretty: false, capacity: 512)
        value.write(to: &writer)
        return .bytes(writer.bytes, status: status)
    }
}
