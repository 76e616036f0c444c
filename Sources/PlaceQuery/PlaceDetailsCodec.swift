import Foundation
import GeoCore
import PlaceModel

/// The `details` column: every field of a place but its id, source, name and coordinates, in one
/// compact binary record, so that a query reads seven columns per row rather than thirty. The
/// fields filters test (categories, rating, price level) come first and are found without
/// decoding the rest (``filterFields(_:)``).
///
/// Format: a sequence of fields, each `tag` (1 byte), `length` (LEB128 varint), `payload`.
/// Text payloads are UTF-8; numbers are 8-byte little-endian IEEE doubles. Unknown tags are
/// skipped, so later versions can add fields. NULL when a place has none of these fields.
///
/// | tag | field | | tag | field |
/// |---|---|---|---|---|
/// | 19 | categories (space-separated ids) | | 21 | price level (1 byte) |
/// | 20 | rating, normalised 0–5 | | 22 | country code |
/// | 23 | source, when it differs from the id's namespace | | 24 | country from the boundaries |
/// | 25 | continent code | | 26 | time zone |
/// | 27 | weekly open ranges (pairs of little-endian UInt16 minutes from Monday 00:00) | | 28 | gem listing: visibility, NUL, owner |
/// | 29 | gem description | | 30 | gem created at (seconds since 1970) |
/// | 31 | gem updated at (seconds since 1970) | | | |
/// | 1 | phone | | 10 | photos (JSON array) |
/// | 2 | website | | 11 | tags (pairs: varint length + key, varint length + value) |
/// | 3 | street | | 12 | gem owner |
/// | 4 | locality | | 13 | gem visibility |
/// | 5 | region | | 14 | source id, when it differs from the id's local part |
/// | 6 | postcode | | 15 | fetched at (seconds since 1970) |
/// | 7 | formatted address | | 16 | imported at (seconds since 1970) |
/// | 8 | opening hours text | | 17 | rating count |
/// | 9 | opening hours periods (JSON) | | 18 | rating scale |
package enum PlaceDetailsCodec {
    /// A record that ends inside a field.
    package struct CorruptRecord: Error {
        package let id: String
        var description: String { "the stored details of \(id) are truncated" }
    }

    /// The field tags as they are on disk, each numbered explicitly: reordering or inserting a
    /// case must never renumber a stored record. A new field takes the next unused number; a
    /// number is never reused. `PlaceDetailsTagTests` pins every value.
    package enum Tag: UInt8, CaseIterable {
        case phone = 1
        case website = 2
        case street = 3
        case locality = 4
        case region = 5
        case postcode = 6
        case formattedAddress = 7
        case hoursText = 8
        case hoursPeriods = 9
        case photos = 10
        case tags = 11
        case gemOwner = 12
        case gemVisibility = 13
        case sourceID = 14
        case fetchedAt = 15
        case importedAt = 16
        case ratingCount = 17
        case ratingScale = 18
        case categories = 19
        case rating = 20
        case priceLevel = 21
        case countryCode = 22
        case source = 23
        case regionCountry = 24
        case continent = 25
        case timeZone = 26
        case weeklyHours = 27
        case gemListing = 28
        case gemDescription = 29
        case gemCreatedAt = 30
        case gemUpdatedAt = 31
    }

    private static let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    private static let jsonDecoder = JSONDecoder()

    // MARK: Encoding

    /// Appends the record of `place` to `out` (nothing when it has none of the fields).
    package static func encode(_ place: Place, appendingTo out: inout [UInt8]) throws {
        func text(_ tag: Tag, _ value: String?) {
            guard let value else { return }
            out.append(tag.rawValue)
            appendVarint(UInt64(value.utf8.count), to: &out)
            out.append(contentsOf: value.utf8)
        }
        func number(_ tag: Tag, _ value: Double?) {
            guard let value else { return }
            out.append(tag.rawValue)
            out.append(8)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        }
        let categories = place.categories
        if !categories.isEmpty {
            out.append(Tag.categories.rawValue)
            appendVarint(UInt64(categories.reduce(categories.count - 1) { $0 + $1.identifier.utf8.count }), to: &out)
            for (offset, category) in categories.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: " ")) }
                out.append(contentsOf: category.identifier.utf8)
            }
        }
        let rating = place.rating, address = place.address, provenance = place.provenance, id = place.id
        number(.rating, rating?.value)
        if let level = place.priceLevel?.level {
            out.append(Tag.priceLevel.rawValue)
            out.append(1)
            out.append(UInt8(level))
        }
        if !id.hasSource(provenance.source) { text(.source, provenance.source) }
        if let region = place.region {
            text(.regionCountry, region.countryCode)
            text(.continent, region.continent?.rawValue)
        }
        text(.timeZone, place.timeZone)
        let gem = place.gem
        if let gem { text(.gemListing, gem.visibility.rawValue + "\u{0}" + gem.owner) }
        let hours = place.openingHours
        if let ranges = hours?.weeklyRanges, !ranges.isEmpty {
            out.append(Tag.weeklyHours.rawValue)
            appendVarint(UInt64(ranges.count * 4), to: &out)
            for range in ranges {
                withUnsafeBytes(of: UInt16(range.lowerBound).littleEndian) { out.append(contentsOf: $0) }
                withUnsafeBytes(of: UInt16(range.upperBound).littleEndian) { out.append(contentsOf: $0) }
            }
        }
        text(.countryCode, address?.countryCode)
        text(.phone, place.phone)
        text(.website, place.website)
        text(.street, address?.street)
        text(.locality, address?.locality)
        text(.region, address?.region)
        text(.postcode, address?.postcode)
        text(.formattedAddress, address?.formatted)
        text(.hoursText, hours?.text)
        if let periods = hours?.periods, !periods.isEmpty {
            text(.hoursPeriods, String(decoding: try jsonEncoder.encode(periods), as: UTF8.self))
        }
        if !place.photos.isEmpty {
            text(.photos, String(decoding: try jsonEncoder.encode(place.photos), as: UTF8.self))
        }
        if !place.tags.isEmpty {
            var pairs: [UInt8] = []
            for key in place.tags.keys.sorted() {
                appendVarint(UInt64(key.utf8.count), to: &pairs)
                pairs.append(contentsOf: key.utf8)
                let value = place.tags[key]!
                appendVarint(UInt64(value.utf8.count), to: &pairs)
                pairs.append(contentsOf: value.utf8)
            }
            out.append(Tag.tags.rawValue)
            appendVarint(UInt64(pairs.count), to: &out)
            out.append(contentsOf: pairs)
        }
        if let gem {
            text(.gemOwner, gem.owner)
            text(.gemVisibility, gem.visibility.rawValue)
            text(.gemDescription, gem.description)
            number(.gemCreatedAt, gem.createdAt?.timeIntervalSince1970)
            number(.gemUpdatedAt, gem.updatedAt?.timeIntervalSince1970)
        }
        if !id.hasLocalID(provenance.sourceID) { text(.sourceID, provenance.sourceID) }
        number(.fetchedAt, provenance.fetchedAt?.timeIntervalSince1970)
        number(.importedAt, provenance.importedAt?.timeIntervalSince1970)
        number(.ratingCount, rating?.count.map(Double.init))
        if let scale = rating?.originalScale, scale != 5 { number(.ratingScale, scale) }
    }

    /// Whether two records hold the same fields, the import time aside (a place re-imported
    /// unchanged is unchanged). Records are written in one field order, so equal content means
    /// equal bytes field by field.
    package static func sameContent(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Bool {
        var i = 0, j = 0
        while true {
            var a = fieldHeader(first, at: &i), b = fieldHeader(second, at: &j)
            if let field = a, field.tag == Tag.importedAt.rawValue {
                i += field.length
                a = fieldHeader(first, at: &i)
            }
            if let field = b, field.tag == Tag.importedAt.rawValue {
                j += field.length
                b = fieldHeader(second, at: &j)
            }
            guard let a, let b else { return a == nil && b == nil && i >= first.count && j >= second.count }
            guard a.tag == b.tag, a.length == b.length,
                memcmp(first.baseAddress! + i, second.baseAddress! + j, a.length) == 0
            else { return false }
            i += a.length
            j += b.length
        }
    }

    /// Calls `body` with each field of a record (header and payload) but the import time, in
    /// order: the bytes ``sameContent(_:_:)`` compares, for hashing them.
    package static func forEachContentField(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var index = 0
        while true {
            let start = index
            guard let field = fieldHeader(bytes, at: &index) else { return }
            index += field.length
            if field.tag != Tag.importedAt.rawValue { body(UnsafeRawBufferPointer(rebasing: bytes[start..<index])) }
        }
    }

    package static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    // MARK: Decoding

    /// Reads the tag and length of the field at `index` and moves `index` to its payload; nil at
    /// the end of the record or when the field would run past it.
    @inline(__always)
    package static func fieldHeader(_ bytes: UnsafeRawBufferPointer, at index: inout Int) -> (tag: UInt8, length: Int)? {
        guard index < bytes.count else { return nil }
        let tag = bytes[index]
        index += 1
        var length = 0, shift = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            length |= Int(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        guard length >= 0, index + length <= bytes.count else { return nil }
        return (tag, length)
    }

    /// The import time stored in a record, found without decoding the rest.
    package static func importedAt(_ bytes: UnsafeRawBufferPointer?) -> Double? {
        guard let bytes else { return nil }
        var index = 0
        while let (tag, length) = fieldHeader(bytes, at: &index) {
            if tag == Tag.importedAt.rawValue && length == 8 {
                return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            }
            index += length
        }
        return nil
    }

    /// The fields filters test, found in place: no allocation, no decoding of the rest.
    package struct FilterFields {
        package var categories = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        /// Set only when the place's source is not its id's namespace.
        package var source: UnsafeBufferPointer<UInt8>?
        package var rating: Double?
        package var priceLevel: Int?
        package var regionCountry: UnsafeBufferPointer<UInt8>?
        package var continent: UnsafeBufferPointer<UInt8>?
        package var timeZone: UnsafeBufferPointer<UInt8>?
        /// Pairs of little-endian UInt16 minutes of the week.
        package var weeklyHours: UnsafeRawBufferPointer?
        /// A gem's visibility, a NUL byte, and its owner.
        package var gemListing: UnsafeBufferPointer<UInt8>?
    }

    @inline(__always)
    package static func filterFields(_ bytes: UnsafeRawBufferPointer?) -> FilterFields {
        var found = FilterFields()
        guard let bytes else { return found }
        var index = 0
        while let (tag, length) = fieldHeader(bytes, at: &index) {
            switch Tag(rawValue: tag) {
            case .categories:
                found.categories = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]).assumingMemoryBound(to: UInt8.self)
            case .rating where length == 8:
                found.rating = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            case .priceLevel where length == 1:
                found.priceLevel = Int(bytes[index])
            case .source:
                found.source = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]).assumingMemoryBound(to: UInt8.self)
            case .regionCountry:
                found.regionCountry = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]).assumingMemoryBound(to: UInt8.self)
            case .continent:
                found.continent = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]).assumingMemoryBound(to: UInt8.self)
            case .timeZone:
                found.timeZone = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]).assumingMemoryBound(to: UInt8.self)
            case .weeklyHours:
                found.weeklyHours = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)])
            case .gemListing:
                found.gemListing = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]).assumingMemoryBound(to: UInt8.self)
            default:
                return found  // the filter fields are written first: nothing more to find
            }
            index += length
        }
        return found
    }

    /// Fields read from a details record; applied to a place by ``apply(_:to:)``.
    package struct Fields {
        package var categories: [Category] = []
        package var rating: Double?
        package var priceLevel: Int?
        package var countryCode: String?
        package var source: String?
        package var regionCountry, continent, timeZone: String?
        package var phone, website, street, locality, region, postcode, formatted, hoursText: String?
        package var hoursPeriods: [OpeningHours.Period] = []
        package var photos: [PhotoReference] = []
        package var tags: [String: String] = [:]
        package var gemOwner, gemVisibility, gemDescription, sourceID: String?
        package var gemCreatedAt, gemUpdatedAt: Double?
        package var fetchedAt, importedAt, ratingCount, ratingScale: Double?
    }

    /// Parses a record. - Throws: ``CorruptRecord`` on a truncated one.
    package static func decode(_ bytes: UnsafeRawBufferPointer, id: String) throws -> Fields {
        var fields = Fields()
        var index = 0
        func varint() throws -> Int {
            var result: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard index < bytes.count, shift < 64 else { throw CorruptRecord(id: id) }
                let byte = bytes[index]
                index += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return Int(result) }
                shift += 7
            }
        }
        func slice(_ length: Int) throws -> UnsafeRawBufferPointer {
            guard length >= 0, index + length <= bytes.count else { throw CorruptRecord(id: id) }
            defer { index += length }
            return UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)])
        }
        while index < bytes.count {
            let tag = bytes[index]
            index += 1
            let payload = try slice(try varint())
            func text() -> String { String(decoding: payload, as: UTF8.self) }
            func number() -> Double? {
                guard payload.count == 8 else { return nil }
                return Double(bitPattern: UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self)))
            }
            switch Tag(rawValue: tag) {
            case .categories:
                fields.categories = Self.categories(payload.assumingMemoryBound(to: UInt8.self))
            case .rating: fields.rating = number()
            case .priceLevel: fields.priceLevel = payload.count == 1 ? Int(payload[0]) : nil
            case .countryCode: fields.countryCode = text()
            case .source: fields.source = text()
            case .regionCountry: fields.regionCountry = text()
            case .continent: fields.continent = text()
            case .timeZone: fields.timeZone = text()
            case .weeklyHours, .gemListing: break  // derived from other fields, for filters
            case .gemDescription: fields.gemDescription = text()
            case .gemCreatedAt: fields.gemCreatedAt = number()
            case .gemUpdatedAt: fields.gemUpdatedAt = number()
            case .phone: fields.phone = text()
            case .website: fields.website = text()
            case .street: fields.street = text()
            case .locality: fields.locality = text()
            case .region: fields.region = text()
            case .postcode: fields.postcode = text()
            case .formattedAddress: fields.formatted = text()
            case .hoursText: fields.hoursText = text()
            case .hoursPeriods: fields.hoursPeriods = (try? jsonDecoder.decode([OpeningHours.Period].self, from: Data(payload))) ?? []
            case .photos: fields.photos = (try? jsonDecoder.decode([PhotoReference].self, from: Data(payload))) ?? []
            case .tags:
                let outer = index
                index -= payload.count
                let end = outer
                while index < end {
                    let key = String(decoding: try slice(try varint()), as: UTF8.self)
                    let value = String(decoding: try slice(try varint()), as: UTF8.self)
                    fields.tags[key] = value
                }
                index = outer
            case .gemOwner: fields.gemOwner = text()
            case .gemVisibility: fields.gemVisibility = text()
            case .sourceID: fields.sourceID = text()
            case .fetchedAt: fields.fetchedAt = number()
            case .importedAt: fields.importedAt = number()
            case .ratingCount: fields.ratingCount = number()
            case .ratingScale: fields.ratingScale = number()
            case nil: continue  // a field from a newer version
            }
        }
        return fields
    }

    /// A place from its stored columns and details record, built with one initialiser (setting
    /// a dozen properties one by one costs a uniqueness test and an access check each, which
    /// showed when every place of a large answer is decoded for JSON).
    package static func place(id: PlaceID, name: String, coordinate: Coordinate, details: Fields?) -> Place {
        guard let details else { return Place(id: id, name: name, coordinate: coordinate) }
        let rating = details.rating.flatMap {
            try? Rating(normalizedValue: $0, count: details.ratingCount.map { Int($0) }, originalScale: details.ratingScale ?? 5)
        }
        let address = Address(
            street: details.street, locality: details.locality, region: details.region,
            postcode: details.postcode, countryCode: details.countryCode, formatted: details.formatted)
        let hours =
            details.hoursText != nil || !details.hoursPeriods.isEmpty
            ? OpeningHours(text: details.hoursText, periods: details.hoursPeriods) : nil
        let gem = details.gemOwner.map {
            HiddenGem(
                owner: $0, visibility: HiddenGem.Visibility(rawValue: details.gemVisibility ?? "") ?? .private,
                description: details.gemDescription,
                createdAt: details.gemCreatedAt.map(Date.init(timeIntervalSince1970:)),
                updatedAt: details.gemUpdatedAt.map(Date.init(timeIntervalSince1970:)))
        }
        let provenance = Provenance(
            source: details.source ?? id.source, sourceID: details.sourceID ?? id.localID,
            fetchedAt: details.fetchedAt.map(Date.init(timeIntervalSince1970:)),
            importedAt: details.importedAt.map(Date.init(timeIntervalSince1970:)))
        return Place(
            id: id, name: name, coordinate: coordinate, categories: details.categories,
            address: address.isEmpty ? nil : address, rating: rating,
            priceLevel: details.priceLevel.flatMap { try? PriceLevel($0) }, phone: details.phone,
            website: details.website, openingHours: hours, photos: details.photos, provenance: provenance,
            tags: details.tags, gem: gem,
            region: details.regionCountry != nil || details.continent != nil
                ? PlaceRegion(countryCode: details.regionCountry, continent: details.continent.flatMap(Continent.init(rawValue:)))
                : nil,
            timeZone: details.timeZone)
    }

    /// Splits the space-separated category column. Stored values were validated on the way in.
    package static func categories(_ bytes: UnsafeBufferPointer<UInt8>) -> [Category] {
        guard bytes.count > 0 else { return [] }
        if !bytes.contains(0x20) {
            return [Category(trustedIdentifier: String(decoding: bytes, as: UTF8.self))]
        }
        return bytes.split(separator: 0x20).map {
            Category(trustedIdentifier: String(decoding: UnsafeBufferPointer(rebasing: $0), as: UTF8.self))
        }
    }
}
