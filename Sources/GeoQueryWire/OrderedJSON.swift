/// JSON with object members in a fixed order, so answers read in contract order and are byte
/// for byte reproducible (Foundation's `JSONEncoder` on Linux does not keep key order). For
/// small documents (a route, a problem, a list of sources); long lists of places are written
/// straight through ``JSONWriter``.
public indirect enum OrderedJSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([OrderedJSON])
    /// Members in order.
    case object([(String, OrderedJSON)])

    public static func optional(_ value: String?) -> OrderedJSON { value.map(OrderedJSON.string) ?? .null }
    public static func optional(_ value: Int?) -> OrderedJSON { value.map(OrderedJSON.int) ?? .null }

    /// The JSON text, compact or indented by two spaces.
    public func rendered(pretty: Bool) -> String {
        var writer = JSONWriter(pretty: pretty, capacity: 256)
        write(to: &writer)
        return writer.text
    }

    /// Writes this value at the writer's position.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .int(let value): writer.int(value)
        case .double(let value): writer.double(value)
        case .string(let value): writer.string(value)
        case .array(let items):
            writer.beginArray()
            for item in items { item.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for (key, value) in members {
                writer.key(dynamic: key)
                value.write(to: &writer)
            }
            writer.endObject()
        }
    }
}
