// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// Settings shared by every Swift target: Swift 6 language mode plus upcoming features that keep
/// public API explicit.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "GeoQuery",
    platforms: [.macOS(.v14)],
    products: [
        // The engine in one import (Sources/GeoQuery re-exports the targets below but the
        // service, the PostGIS store and accounts).
        .library(name: "GeoQuery", targets: ["GeoQuery"]),
        .library(name: "GeoCore", targets: ["GeoCore"]),
        .library(name: "PlaceModel", targets: ["PlaceModel"]),
        .library(name: "PlaceQuery", targets: ["PlaceQuery"]),
        .library(name: "PlaceStore", targets: ["PlaceStore"]),
        .library(name: "GeoQueryWire", targets: ["GeoQueryWire"]),
        .library(name: "GeoQueryServer", targets: ["GeoQueryServer"]),
        .library(name: "PlaceImport", targets: ["PlaceImport"]),
        .library(name: "Regions", targets: ["Regions"]),
        .library(name: "Routing", targets: ["Routing"]),
        .library(name: "Accounts", targets: ["Accounts"]),
        .library(name: "PostGISStore", targets: ["PostGISStore"]),
        .library(name: "Providers", targets: ["Providers"]),
        .library(name: "Trips", targets: ["Trips"]),
        .library(name: "Discovery", targets: ["Discovery"]),
        .library(name: "Social", targets: ["Social"]),
        .executable(name: "geoquery", targets: ["GeoQueryCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),  // LogHandler.log(event:)
        // The thread pool that blocking SQLite and CPU work runs on (NIOThreadPool).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The HTTP service (see docs/architecture.md, "Why these libraries").
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // The outbound client (OutboundHTTPTransport): already built for Hummingbird's tests.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Accounts: bcrypt (HummingbirdBcrypt) for passwords, SHA-256 (swift-crypto) for tokens and photos.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The scale-out backend: PostgreSQL/PostGIS through postgres-nio (see docs/architecture.md).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `make docs`: DocC for every library target (a plugin only; nothing links it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C shims: the system libsqlite3 (Debian's build can load extensions) and libspatialite.
        .systemLibrary(
            name: "CSpatiaLite",
            pkgConfig: "spatialite",
            providers: [.apt(["libspatialite-dev", "libsqlite3-dev"])]
        ),
        // libvips, which decodes and encodes photos again (no metadata kept) and makes their variants.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // libbz2, for `.osm.bz2` dumps.
        .systemLibrary(name: "CBzip2", providers: [.apt(["libbz2-dev"])]),
        // readosm, the C OpenStreetMap reader GeoQuery used before reading OSM in Swift: only
        // `make bench` links it, as the baseline the Swift reader is measured against.
        .systemLibrary(name: "CReadOSM", pkgConfig: "readosm", providers: [.apt(["libreadosm-dev"])]),
        // zlib, for the gzip-compressed country boundaries.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "GeoCore", swiftSettings: swiftSettings),
        .target(name: "PlaceModel", dependencies: ["GeoCore"], swiftSettings: swiftSettings),
        .target(name: "Routing", dependencies: ["GeoCore"], swiftSettings: swiftSettings),
        // Country, continent and time zone of a point, from Natural Earth boundaries and GeoNames.
        .target(name: "Regions", dependencies: ["GeoCore", "PlaceModel", "CZlib"], swiftSettings: swiftSettings),
        // The backend-neutral storage seam: query and write protocols and their value types.
        .target(name: "PlaceQuery", dependencies: ["GeoCore", "PlaceModel"], swiftSettings: swiftSettings),
        // The embedded implementation of the seam on SpatiaLite.
        .target(
            name: "PlaceStore",
            dependencies: [
                "GeoCore", "PlaceModel", "PlaceQuery", "CSpatiaLite",
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The scale-out implementation of the seam on PostgreSQL/PostGIS.
        .target(
            name: "PostGISStore",
            dependencies: [
                "GeoCore", "PlaceModel", "PlaceQuery",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Sign-up, sign-in, sessions and rate limits over any AccountStore.
        .target(
            name: "Accounts",
            dependencies: [
                "GeoCore", "PlaceQuery", "PlaceModel",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Provider adapters (Google, Yelp, Foursquare, HERE, weather) and federated search.
        // PlaceStore only for the local index as one more source.
        .target(
            name: "Providers",
            dependencies: [
                "GeoCore", "PlaceModel", "PlaceQuery",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PlaceImport",
            dependencies: ["GeoCore", "PlaceModel", "PlaceQuery", "Regions", "CBzip2", "CZlib"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GeoQuery",
            dependencies: [
                "Discovery", "GeoCore", "GeoQueryWire", "PlaceImport", "PlaceModel", "PlaceQuery", "PlaceStore", "Providers", "Regions",
                "Routing", "Trips",
            ],
            swiftSettings: swiftSettings),
        // Use cases of what people do with one another: friends, blocks and follows.
        .target(name: "Social", dependencies: ["GeoCore", "PlaceQuery"], swiftSettings: swiftSettings),
        // Itineraries and trips: their documents, who may do what, costs, meeting times, day plans.
        .target(name: "Trips", dependencies: ["GeoCore", "PlaceModel", "PlaceQuery", "Routing"], swiftSettings: swiftSettings),
        .target(
            name: "Discovery", dependencies: ["GeoCore", "PlaceModel", "PlaceQuery", "Regions", "Routing", "Trips"], swiftSettings: swiftSettings),
        // The answers' JSON / GeoJSON / CSV contracts and request parsing, shared by CLI and server.
        .target(
            name: "GeoQueryWire",
            dependencies: ["GeoCore", "PlaceModel", "PlaceQuery", "Routing", "Providers", "PlaceImport", "Regions", "Discovery"],
            swiftSettings: swiftSettings),
        // The Hummingbird application behind `geoquery serve`.
        .target(
            name: "GeoQueryServer",
            dependencies: [
                "GeoCore", "PlaceModel", "PlaceQuery", "Routing", "Providers", "GeoQueryWire", "Regions", "Accounts", "Trips", "Discovery",
                "Social", "CVips",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The authenticator middleware and the identity in the request context.
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "GeoQueryCLI",
            dependencies: [
                "GeoCore", "PlaceModel", "PlaceQuery", "PlaceStore", "PostGISStore", "PlaceImport", "Routing", "Providers",
                "GeoQueryWire", "GeoQueryServer", "Regions", "Accounts",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // IOError's errno, to say why `serve` could not listen.
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // `make bench`: synthetic 1 M place index, library vs raw engine. Not run by `make test`.
        .executableTarget(
            name: "GeoQueryBench",
            dependencies: [
                "GeoCore", "PlaceModel", "PlaceQuery", "PlaceStore", "PlaceImport", "Routing", "CSpatiaLite",
                "GeoQueryWire", "CReadOSM", "Accounts", "PostGISStore", "PostgresTestSupport", "Trips", "Discovery", "Regions",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GeoCoreTests", dependencies: ["GeoCore"],
            resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(
            name: "RoutingTests", dependencies: ["Routing", "GeoCore"],
            resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(
            name: "DiscoveryTests", dependencies: ["Discovery", "PlaceModel", "Regions", "Routing", "Trips", "GeoCore"],
            swiftSettings: swiftSettings),
        .testTarget(name: "TripsTests", dependencies: ["Trips", "Routing", "PlaceQuery", "GeoCore"], swiftSettings: swiftSettings),
        .testTarget(name: "SocialTests", dependencies: ["Social", "PlaceStore", "PlaceQuery"], swiftSettings: swiftSettings),
        .testTarget(name: "PlaceModelTests", dependencies: ["PlaceModel"], swiftSettings: swiftSettings),
        .testTarget(name: "RegionsTests", dependencies: ["Regions", "PlaceModel", "GeoCore"], swiftSettings: swiftSettings),
        // The conformance suite every store implementation runs (index = brute force, paging = unpaged).
        .target(
            name: "PlaceQueryConformance", dependencies: ["PlaceQuery", "GeoCore", "PlaceModel"],
            path: "Tests/PlaceQueryConformance", swiftSettings: swiftSettings),
        .testTarget(
            name: "PlaceStoreTests", dependencies: ["PlaceStore", "PlaceQuery", "PlaceQueryConformance", "ProviderTestSupport"],
            swiftSettings: swiftSettings),
        // A throwaway PostgreSQL cluster for the tests that need one.
        .target(name: "PostgresTestSupport", dependencies: [], path: "Tests/PostgresTestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "PostGISStoreTests",
            dependencies: [
                "PostGISStore", "PlaceQuery", "PlaceQueryConformance", "PostgresTestSupport", "ProviderTestSupport",
                "PlaceModel", "GeoCore",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "GeoQueryWireTests", dependencies: ["GeoQueryWire", "PlaceQuery", "PlaceModel", "GeoCore"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "GeoQueryServerTests",
            dependencies: [
                "GeoQueryServer", "PlaceStore", "PlaceQuery", "GeoQueryWire", "PlaceImport", "Providers",
                "ProviderTestSupport", "GeoCore", "PlaceModel", "Regions", "Accounts", "Discovery",
                "PostGISStore", "PostgresTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PlaceImportTests", dependencies: ["PlaceImport", "PlaceStore", "PlaceQuery", "GeoCore", "CZlib"],
            resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(
            name: "ProvidersTests",
            dependencies: ["Providers", "PlaceStore", "PlaceQuery", "PlaceModel", "GeoCore", "ProviderTestSupport"],
            swiftSettings: swiftSettings),
        // The loopback HTTP server that adapter and CLI tests point providers at.
        .target(
            name: "ProviderTestSupport",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/ProviderTestSupport", resources: [.copy("Recorded")], swiftSettings: swiftSettings),
        // Runs the built `geoquery` executable as a user would.
        .testTarget(
            name: "GeoQueryCLITests",
            dependencies: [
                "GeoQueryCLI", "GeoQueryServer", "GeoQuery", "PlaceStore", "PlaceQuery", "PlaceModel", "GeoCore", "ProviderTestSupport",
                "PostgresTestSupport",
            ],
            swiftSettings: swiftSettings),
    ]
)

// `make fuzz` only (GEOQUERY_FUZZ set): the libFuzzer targets, built with `-sanitize=fuzzer`,
// which supplies `main` (so a plain build, which has no libFuzzer, leaves the target out).
if ProcessInfo.processInfo.environment["GEOQUERY_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "GeoQueryFuzz",
            dependencies: [
                "GeoCore", "PlaceModel", "PlaceQuery", "PlaceImport", "PlaceStore", "Regions", "Routing", "Providers",
                "GeoQueryWire", "GeoQueryServer", "Accounts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings))
    package.products.append(.executable(name: "geoquery-fuzz", targets: ["GeoQueryFuzz"]))
}
