import Foundation
import Providers

/// The wire form of ``PlaceImage``s: each with what its licence asks an app to show.
public enum ImageAnswer {
    /// One image: `url`, `thumbnail_url`, `width`, `height`, `title`, `author`, `author_url`,
    /// `licence`, `licence_url`, `source_url`, `provider`.
    public static func json(_ image: PlaceImage) -> OrderedJSON {
        .object([
            ("url", .string(image.url.absoluteString)),
            ("thumbnail_url", .optional(image.thumbnailURL?.absoluteString)),
            ("width", image.width.map(OrderedJSON.int) ?? .null),
            ("height", image.height.map(OrderedJSON.int) ?? .null),
            ("title", .optional(image.title)),
            ("author", .optional(image.author)),
            ("author_url", .optional(image.authorURL?.absoluteString)),
            ("licence", .string(image.licence)),
            ("licence_url", .optional(image.licenceURL?.absoluteString)),
            ("source_url", .string(image.sourceURL.absoluteString)),
            ("provider", .string(image.provider.rawValue)),
        ])
    }

    /// `{"images": [...], "failures": [{"provider", "error"}]}`.
    public static func json(_ images: [PlaceImage], failures: [ProviderName: ProviderError]) -> OrderedJSON {
        .object([
            ("images", .array(images.map(json))),
            (
                "failures",
                .array(
                    failures.sorted { $0.key < $1.key }.map { name, error in
                        .object([("provider", .string(name.rawValue)), ("error", .string(error.description))])
                    })
            ),
        ])
    }
}
