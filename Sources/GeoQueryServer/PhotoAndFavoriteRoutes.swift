import Accounts
import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery
import Providers

/// Photos (`/v1/gems/{id}/photos`, `/v1/me/avatar`, `/v1/photos/{id}`) and favourites
/// (`/v1/me/favorites…`).
extension GeoQueryService {
    func addPhotoRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        groups.creators.route(.post, "/v1/gems/{id}/photos", in: &table, bound: bound) { try await addGemPhoto($0, $1) }

        // A photo taken off its gem; its file goes when nothing else (another gem, an avatar,
        // an album) uses it.
        groups.members.route(.delete, "/v1/gems/{id}/photos/{photoId}", in: &table, bound: bound) { try await removeGemPhoto($0, $1) }
        groups.creators.route(.put, "/v1/me/avatar", in: &table, bound: bound) { try await setAvatar($0, $1) }

        // The photos that count against the asker's storage, newest first and paged, and where
        // the asker shows each.
        groups.members.route(.get, "/v1/me/photos", in: &table, bound: bound) { try await listMyPhotos($0, $1) }

        // `?w=320`: a variant at most that wide, for lists and pins, made once and kept beside
        // the photo's file.
        router.route(.get, "/v1/photos/{id}", in: &table, bound: bound) { try await servePhoto($0, $1) }
    }

    /// `POST /v1/gems/{id}/photos`.
    func addGemPhoto(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let gem = try await ownedGem(try gemID(context), by: user.username)
        let full = APIProblem(.conflict, "gem \(gem.id) has 20 photos, the most a gem may have")
        guard gem.photos.count < 20 else { throw full }
        let (photo, _) = try await storePhoto(request, owner: user.username) { photo in
            try await changeGem(gem.id, by: user.username, request: request) { gem in
                guard !gem.photos.contains(where: { $0.reference == "photo:" + photo.id }) else { return }
                guard gem.photos.count < 20 else { throw full }
                gem.photos.append(
                    PhotoReference(
                        url: Self.photoPath(photo.id), reference: "photo:" + photo.id, width: photo.width, height: photo.height,
                        attribution: user.username))
            }
        }
        return .json(Self.photoJSON(photo), status: .created)
    }

    /// `DELETE /v1/gems/{id}/photos/{photoId}`.
    func removeGemPhoto(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let id = try gemID(context)
        let photoID = try context.parameters.require("photoId")
        _ = try await changeGem(id, by: user.username, request: request) { gem in
            guard let position = gem.photos.firstIndex(where: { $0.reference == "photo:" + photoID }) else {
                throw APIProblem(.notFound, "photo \(photoID.prefix(64)) is not a photo of gem \(gem.id)")
            }
            gem.photos.remove(at: position)
        }
        try await removePhotoFiles(try await requireUserData().removeUnusedPhotos([photoID]))
        return Response(status: .noContent)
    }

    /// `PUT /v1/me/avatar`.
    func setAvatar(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        var previous: String?
        let (photo, _) = try await storePhoto(request, owner: user.username) { photo in
            try await changeAccount(user.username) { account in
                previous = account.profile.avatarPhoto
                account.profile.avatarPhoto = photo.id
            }
        }
        if let previous, previous != photo.id {
            try await removePhotoFiles(try await requireUserData().removeUnusedPhotos([previous]))
        }
        return .json(Self.photoJSON(photo))
    }

    /// `GET /v1/me/photos`.
    func listMyPhotos(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let parameters = try QueryParameters(request, allowed: ["limit", "cursor"])
        let limit = try pageLimit(parameters)
        let after = try ListCursor.position(request, parameters).map { text in
            guard let position = Self.photoPosition(cursor: text) else {
                throw APIProblem.badRequest("cursor '\(text.prefix(100))' is invalid: pass next_cursor of the previous page")
            }
            return position
        }
        let store = try requireUserData()
        let found = try await store.photos(ownedBy: user.username, after: after, limit: limit + 1)
        let photos = Array(found.prefix(limit))
        let uses = Dictionary(grouping: try await store.photoUses(by: user.username, among: photos.map(\.id)), by: \.photoID)
        let used = try await store.photoBytes(ownedBy: user.username)
        let next = found.count > limit ? photos.last.map { ListCursor.encode(Self.photoCursor($0), for: request) } : nil
        var response = Response.json(
            .object([
                (
                    "photo_storage",
                    .object([
                        ("used_bytes", .int(used)),
                        ("limit_bytes", configuration.photoStorageLimit.map { .int($0) } ?? .null),
                    ])
                ),
                ("count", .int(photos.count)),
                (
                    "photos",
                    .array(
                        photos.map { photo in
                            let shown = (uses[photo.id] ?? []).sorted {
                                ($0.kind.rawValue, $0.objectID ?? "") < ($1.kind.rawValue, $1.objectID ?? "")
                            }
                            return .object(
                                Self.photoFields(photo) + [
                                    ("uploaded_at", Self.timestampJSON(photo.createdAt)),
                                    (
                                        "used_by",
                                        .array(
                                            shown.map { use in
                                                switch use.kind {
                                                case .avatar: return .object([("kind", .string("avatar"))])
                                                case .gem: return .object([("kind", .string("gem")), ("id", .optional(use.objectID))])
                                                case .album: return .object([("kind", .string("trip")), ("id", .optional(use.objectID))])
                                                }
                                            })
                                    ),
                                ])
                        })
                ),
                ("next_cursor", .optional(next)),
            ]))
        response.headers[.cacheControl] = "no-store"
        if let next { response.headers[Self.linkHeader] = "<\(Self.nextURL(request, cursor: next))>; rel=\"next\"" }
        return response
    }

    /// `GET /v1/photos/{id}`.
    func servePhoto(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let parameters = try QueryParameters(request, allowed: ["w"])
        var width: Int?
        if let text = try parameters.single("w") {
            guard let value = Int(text), PhotoSanitizer.variantWidths.contains(value) else {
                throw APIProblem.badRequest(
                    "w '\(text.prefix(20))' is invalid: give one of \(PhotoSanitizer.variantWidths.map(String.init).joined(separator: ", ")) (pixels), or no w for the photo itself"
                )
            }
            width = value
        }
        guard id.count == 64, id.allSatisfy(\.isHexDigit), let directory = configuration.photoDirectory,
            let photo = try await requireUserData().photo(id: id)
        else {
            throw APIProblem(.notFound, "no photo with id \(id)")
        }
        let variantWidth = width
        let tag = width.map { "\(id)-w\($0)" } ?? id
        var headers: HTTPFields = [.eTag: "\"\(tag)\"", .cacheControl: "public, max-age=31536000, immutable"]
        if request.headers[.ifNoneMatch]?.contains("\"\(tag)\"") == true { return Response(status: .notModified, headers: headers) }
        // File reads and image work run on the worker pool, never on an event loop.
        let path = PhotoFiles.path(id, in: directory)
        let data = try await onWorker { () throws -> Data? in
            guard let width = variantWidth else { return FileManager.default.contents(atPath: path) }
            let variant = PhotoFiles.variantPath(path, width: width)
            if let kept = FileManager.default.contents(atPath: variant) { return kept }
            guard let original = FileManager.default.contents(atPath: path) else { return nil }
            let made: [UInt8]
            do { made = try PhotoSanitizer.variant([UInt8](original), width: width).bytes } catch {
                throw APIProblem(.internalServerError, "photo \(id) cannot be resized: \(error)")
            }
            let temporary = variant + ".\(UInt32.random(in: .min ... .max)).tmp"
            try? Data(made).write(to: URL(fileURLWithPath: temporary))
            try? FileManager.default.moveItem(atPath: temporary, toPath: variant)
            try? FileManager.default.removeItem(atPath: temporary)
            return Data(made)
        }
        guard let data else { throw APIProblem(.notFound, "no photo with id \(id)") }
        headers[.contentLength] = String(data.count)
        return .bytes([UInt8](data), contentType: photo.contentType, headers: headers)
    }

    func addFavoriteRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        groups.creators.route(.put, "/v1/me/favorites/{placeId}", in: &table, bound: bound) { try await addFavorite($0, $1) }
        groups.members.route(.delete, "/v1/me/favorites/{placeId}", in: &table, bound: bound) { try await removeFavorite($0, $1) }

        // Listing fetches provider places again: network work, so the request's time is raced
        // and the fetches run eight at a time.
        groups.members.route(.get, "/v1/me/favorites", in: &table, bound: .cancelling(configuration.requestTimeout)) {
            try await listFavorites($0, $1)
        }
    }

    /// `GET /v1/me/favorites`.
    func listFavorites(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let parameters = try QueryParameters(request, allowed: ["limit", "cursor"])
        let limit = try pageLimit(parameters)
        let after = try ListCursor.position(request, parameters).map { text -> PlaceID in
            guard let id = try? PlaceID(text) else {
                throw APIProblem.badRequest("cursor '\(text)' is invalid: pass next_cursor of the previous page")
            }
            return id
        }
        let found = try await requireUserData().favorites(of: user.username, after: after, limit: limit + 1)
        let page = Array(found.prefix(limit))
        var json = JSONWriter(capacity: 1024 + page.count * 600)
        json.beginObject()
        json.key("query")
        json.beginObject()
        json.key("kind")
        json.string("favorites")
        json.key("limit")
        json.int(limit)
        json.endObject()
        json.key("count")
        json.int(page.count)
        json.key("favorites")
        json.beginArray()
        let places = try await favoritePlaces(page.map(\.placeID), viewer: user.username)
        for (favorite, place) in zip(page, places) {
            json.beginObject()
            json.key("place_id")
            json.string(favorite.placeID.rawValue)
            json.key("added_at")
            json.timestamp(favorite.createdAt)
            json.key("status")
            json.string(place.status)
            json.key("place")
            if let found = place.place { PlaceJSON.write(found, distance: nil, to: &json, includeCoordinates: true) } else { json.null() }
            json.endObject()
        }
        json.endArray()
        json.key("next_cursor")
        json.string(found.count > limit ? page.last.map { ListCursor.encode($0.placeID.rawValue, for: request) } : nil)
        json.endObject()
        return .writer(json)
    }

    /// `PUT /v1/me/favorites/{placeId}`.
    func addFavorite(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let id = try favoriteID(context)
        try await checkFavoritable(id, viewer: user.username)
        let added = try await requireUserData().addFavorite(id, for: user.username, at: Date())
        if added { await countActivity(.favorite, [id.rawValue]) }
        return .json(.object([("place_id", .string(id.rawValue)), ("favorite", .bool(true))]), status: added ? .created : .ok)
    }

    /// `DELETE /v1/me/favorites/{placeId}`.
    func removeFavorite(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let id = try favoriteID(context)
        guard try await requireUserData().removeFavorite(id, for: user.username) else {
            throw APIProblem(.notFound, "\(id) is not among your favourites")
        }
        return Response(status: .noContent)
    }

    // MARK: - Photos

    /// A page position in `/v1/me/photos` as a cursor: the upload time (seconds, exactly as
    /// stored) and the photo's id.
    static func photoCursor(_ photo: PhotoRecord) -> String {
        "\(photo.createdAt.timeIntervalSince1970)_\(photo.id)"
    }

    static func photoPosition(cursor: String) -> (uploadedAt: Date, id: String)? {
        let parts = cursor.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let seconds = Double(parts[0]), seconds.isFinite,
            parts[1].count == 64, parts[1].allSatisfy(\.isHexDigit)
        else { return nil }
        return (Date(timeIntervalSince1970: seconds), String(parts[1]))
    }

    /// Reads an image body (413 past the limit, without reading the rest), checks its type by
    /// its bytes, strips its metadata, stores it under its SHA-256, and runs `attach`, which
    /// makes something use it.
    ///
    /// When `attach` fails, the photo goes again unless something else uses it (so a failed
    /// attach neither leaves a file behind nor counts against the uploader's storage). When it
    /// succeeds, the photo is made sure of: another account that removed the same bytes in the
    /// meantime may have taken its record or file away.
    func storePhoto<T: Sendable>(
        _ request: Request, owner: String,
        attach: (PhotoRecord) async throws -> T
    ) async throws -> (photo: PhotoRecord, attached: T) {
        guard let directory = configuration.photoDirectory else {
            throw APIProblem(.serviceUnavailable, "this service stores no photos (no photo directory)")
        }
        let limit = configuration.maximumPhotoBytes
        if let problem = APIProblem.declaredTooLarge(request, limit: limit, what: "the photo") { throw problem }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: limit) } catch {
            throw APIProblem(.contentTooLarge, "the photo is larger than \(limit) bytes (10 MB), the most this service accepts")
        }
        // Sniffing, stripping and hashing up to 10 MB run on the worker pool.
        let uploaded = Array(buffer.readableBytesView)
        // Decoded and encoded again (no metadata survives), refused past 40 megapixels before a
        // pixel is decoded; on the worker pool.
        let image = try await onWorker { () throws -> PhotoSanitizer.Image in
            do { return try PhotoSanitizer.sanitize(uploaded) } catch let error as PhotoSanitizer.Failure {
                switch error {
                case .tooManyPixels: throw APIProblem(.unprocessableContent, error.description)
                case .unavailable: throw APIProblem(.serviceUnavailable, error.description)
                case .unknownType, .malformed: throw APIProblem(.unsupportedMediaType, error.description)
                }
            }
        }
        let (kind, clean) = (image.kind, image.bytes)
        let id = SessionToken.sha256Hex(clean)
        let userData = try requireUserData()
        let storageLimit = configuration.photoStorageLimit
        // A photo stored already (by anyone) costs nothing; a new one must fit the owner's
        // storage. Checked before its file is written, and again by the store as it records it.
        if let storageLimit, try await userData.photo(id: id) == nil {
            let used = try await userData.photoBytes(ownedBy: owner)
            guard used + clean.count <= storageLimit else {
                throw UserDataError.storageFull(owner: owner, used: used, adding: clean.count, limit: storageLimit)
            }
        }
        let wroteFile = try await writePhotoFile(id, clean, in: directory)
        let record = PhotoRecord(
            id: id, contentType: kind.rawValue, byteCount: clean.count, owner: owner, createdAt: Date(), width: image.width, height: image.height)
        do {
            try await userData.savePhoto(record, storageLimit: storageLimit)
        } catch let error as UserDataError {
            // Another upload filled the storage meanwhile: the file goes unless it is recorded.
            if wroteFile, try await userData.photo(id: id) == nil { try await removePhotoFiles([id]) }
            throw error
        }
        let stored = try await userData.photo(id: id) ?? record
        let attached: T
        do {
            attached = try await attach(stored)
        } catch {
            if let unused = try? await userData.removeUnusedPhotos([id]) { try? await removePhotoFiles(unused) }
            throw error
        }
        // Now that something uses it, no removal takes it away; one that ran between the save
        // and the attach (the same bytes taken off another account's object) is undone.
        var kept = try await userData.photo(id: id)
        if kept == nil {
            try await userData.savePhoto(record, storageLimit: nil)
            kept = record
        }
        _ = try await writePhotoFile(id, clean, in: directory)
        return (kept ?? stored, attached)
    }

    /// Writes a photo's file unless it is there already (on the worker pool). - Returns: whether
    /// it wrote it.
    func writePhotoFile(_ id: String, _ bytes: [UInt8], in directory: String) async throws -> Bool {
        let path = PhotoFiles.path(id, in: directory)
        return try await onWorker { () throws -> Bool in
            guard !FileManager.default.fileExists(atPath: path) else { return false }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            // Written to a temporary name and renamed, so a reader never sees half a photo.
            let temporary = path + ".\(UInt32.random(in: .min ... .max)).tmp"
            try Data(bytes).write(to: URL(fileURLWithPath: temporary))
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
            return true
        }
    }

    /// Removes the photos nothing has used since before `now` less
    /// ``ServiceConfiguration/abandonedPhotoAge``, with their files: uploads whose attach never
    /// happened because the process stopped between the two. - Returns: how many.
    @discardableResult
    public func removeAbandonedPhotos(now: Date = Date()) async throws -> Int {
        guard let store = userData else { return 0 }
        let removed = try await store.removeUnusedPhotos(storedBefore: now.addingTimeInterval(-configuration.abandonedPhotoAge))
        try await removePhotoFiles(removed)
        return removed.count
    }

    /// Removes the files of photos the store no longer knows (on the worker pool).
    func removePhotoFiles(_ ids: [String]) async throws {
        guard let directory = configuration.photoDirectory, !ids.isEmpty else { return }
        // An upload of the same bytes may have recorded a photo again since: its file stays.
        var gone: [String] = []
        for id in ids where try await userData?.photo(id: id) == nil { gone.append(id) }
        let ids = gone
        try await onWorker {
            for id in ids where id.count == 64 && id.allSatisfy(\.isHexDigit) {
                let path = PhotoFiles.path(id, in: directory)
                try? FileManager.default.removeItem(atPath: path)
                for width in PhotoSanitizer.variantWidths { try? FileManager.default.removeItem(atPath: PhotoFiles.variantPath(path, width: width)) }
            }
        }
    }

    static func photoJSON(_ photo: PhotoRecord) -> OrderedJSON { .object(photoFields(photo)) }

    /// A photo people uploaded, as every answer shows one (docs/api-conventions.md): its id, its
    /// absolute URL and its size in pixels (null for photos stored before sizes were kept), then
    /// what the answer adds.
    static func photoCore(id: String, width: Int?, height: Int?) -> [(String, OrderedJSON)] {
        [
            ("id", .string(id)), ("url", .string(PublicURL.absolute(photoPath(id)))), ("width", .optional(width)),
            ("height", .optional(height)),
        ]
    }

    /// The server-relative path of photo `id`.
    static func photoPath(_ id: String) -> String { "/v1/photos/\(id)" }

    /// A photo as its uploader sees it: the common members, its type and its size in bytes.
    static func photoFields(_ photo: PhotoRecord) -> [(String, OrderedJSON)] {
        photoCore(id: photo.id, width: photo.width, height: photo.height) + [
            ("content_type", .string(photo.contentType)), ("bytes", .int(photo.byteCount)),
        ]
    }

    // MARK: - Favourites

    func favoriteID(_ context: some RequestContext) throws -> PlaceID {
        let raw = try context.parameters.require("placeId")
        let text = raw.removingPercentEncoding ?? raw
        do { return try PlaceID(text) } catch { throw APIProblem.badRequest(String(describing: error)) }
    }

    /// A provider's place id is data, never URL text: its local part must be an id that
    /// provider could have given (400 naming the id and what is valid).
    static func checkProviderID(_ id: PlaceID, field: String? = nil) throws {
        guard let provider = ProviderName(rawValue: id.source), providerSources.contains(id.source) else { return }
        do { try provider.checkLocalID(id.localID) } catch {
            throw APIProblem.badRequest((field.map { "\($0) " } ?? "") + error.description)
        }
    }

    /// A favourite must name a place the user can see: a gem they may open, a place in the
    /// index, or a place of a known provider (kept by id only).
    func checkFavoritable(_ id: PlaceID, viewer: String) async throws {
        if id.source == "gem" {
            _ = try await reachableGem(id, viewer: viewer)
            return
        }
        if Self.providerSources.contains(id.source) {
            try Self.checkProviderID(id)
            return
        }
        guard try await index.place(id) != nil else { throw APIProblem(.notFound, "no place with id \(id)") }
    }

    static let providerSources: Set<String> = ["google", "yelp", "foursquare", "here"]

    /// A provider's place fetched again by its id (see ``favoritePlaces(_:viewer:)``).
    func providerPlace(_ id: PlaceID) async -> (status: String, place: Place?) {
        let settings = configuration.providers
        guard let name = ProviderName(rawValue: id.source), (try? settings.environment.key(for: name)) != nil else {
            return ("provider", nil)
        }
        // A favourite stored before ids were checked: no provider has such a place.
        guard name.isValidLocalID(id.localID) else { return ("gone", nil) }
        let origin = Coordinate(uncheckedLatitude: 0, longitude: 0)  // distances are not shown here
        do {
            let found: ProviderPlace
            switch name {
            case .google: found = try await GooglePlacesAdapter(settings: settings).details(id: id.rawValue, center: origin)
            case .yelp: found = try await YelpAdapter(settings: settings).details(id: id.rawValue, center: origin)
            case .here: found = try await HEREAdapter(settings: settings).lookup(id: id.localID, center: origin)
            default: return ("provider", nil)
            }
            return ("ok", found.place)
        } catch ProviderError.rejected(_, let status, _, _) where status == 404 || status == 410 {
            return ("gone", nil)
        } catch {
            return ("unavailable", nil)
        }
    }

    /// The place each favourite names now, in the ids' order: `ok` with the place, `gone` when
    /// it was deleted (or a gem turned private, or the provider no longer has it). A provider
    /// place is kept by id only, as the providers' terms require, and fetched again here:
    /// `provider` when this deployment has no key for it (or the provider has no lookup by id:
    /// Foursquare), `unavailable` when the provider did not answer. The index's places and the
    /// gems are read in one read each; the providers' places are fetched eight at a time.
    func favoritePlaces(_ ids: [PlaceID], viewer: String) async throws -> [(status: String, place: Place?)] {
        var found = [(status: String, place: Place?)](repeating: ("gone", nil), count: ids.count)
        let gemIDs = ids.filter { $0.source == "gem" }
        let placeIDs = ids.filter { $0.source != "gem" && !Self.providerSources.contains($0.source) }
        let gems = gemIDs.isEmpty ? [:] : try await requireUserData().places(gemIDs)
        let places = try await index.places(placeIDs)
        var friendsOf: [String: Bool] = [:]  // owner → is the viewer their friend (asked once each)
        var providerOffsets: [Int] = []
        for (offset, id) in ids.enumerated() {
            if Self.providerSources.contains(id.source) {
                providerOffsets.append(offset)
            } else if id.source == "gem" {
                guard let gem = gems[id], let hidden = gem.gem else { continue }
                // A friends-only gem's answer depends on its owner alone.
                let owner = hidden.visibility == .friends ? hidden.owner : nil
                let reachable: Bool
                if let owner, let known = friendsOf[owner] {
                    reachable = known
                } else {
                    reachable = try await mayOpen(gem, viewer: viewer)
                    if let owner { friendsOf[owner] = reachable }
                }
                if reachable { found[offset] = ("ok", gem) }
            } else if let place = places[id] {
                found[offset] = ("ok", place)
            }
        }
        guard !providerOffsets.isEmpty else { return found }
        return try await withThrowingTaskGroup(of: (Int, (status: String, place: Place?)).self) { group in
            var next = 0
            func start() {
                guard next < providerOffsets.count else { return }
                let offset = providerOffsets[next], id = ids[offset]
                next += 1
                group.addTask { (offset, await providerPlace(id)) }
            }
            for _ in 0..<min(8, providerOffsets.count) { start() }
            while let (offset, place) = try await group.next() {
                found[offset] = place
                start()
            }
            return found
        }
    }
}
