import Foundation
import HearthHTTP

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// A WebDAV request body as a tree: each element's namespace and local name, its children
/// and its text. Parsed by Foundation's XMLParser (libxml2), namespaces resolved; no
/// external entities are read.
final class DAVElement {
  let namespace: String
  let name: String
  var attributes: [String: String]
  var children: [DAVElement] = []
  var text = ""

  init(namespace: String, name: String, attributes: [String: String] = [:]) {
    self.namespace = namespace
    self.name = name
    self.attributes = attributes
  }

  func child(_ namespace: String, _ name: String) -> DAVElement? {
    children.first { $0.namespace == namespace && $0.name == name }
  }

  func all(_ namespace: String, _ name: String) -> [DAVElement] {
    children.filter { $0.namespace == namespace && $0.name == name }
  }

  /// `{namespace}name`, as props are keyed.
  var key: String { "{\(namespace)}\(name)" }

  static func parse(_ data: Data) -> DAVElement? {
    guard !data.isEmpty else { return nil }
    let builder = Builder()
    let parser = XMLParser(data: data)
    parser.shouldProcessNamespaces = true
    parser.shouldResolveExternalEntities = false
    parser.delegate = builder
    guard parser.parse() else { return nil }
    return builder.root
  }

  private final class Builder: NSObject, XMLParserDelegate {
    var root: DAVElement?
    var stack: [DAVElement] = []

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName: String?, attributes: [String: String] = [:]
    ) {
      let element = DAVElement(
        namespace: namespaceURI ?? "", name: elementName, attributes: attributes)
      if let parent = stack.last { parent.children.append(element) } else { root = element }
      stack.append(element)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName: String?
    ) {
      _ = stack.popLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      stack.last?.text += string
    }

    func parser(_ parser: XMLParser, foundCDATA data: Data) {
      stack.last?.text += String(decoding: data, as: UTF8.self)
    }
  }
}

/// The namespaces CalDAV speaks, and the prefixes the responses give them.
enum DAV {
  static let dav = "DAV:"
  static let caldav = "urn:ietf:params:xml:ns:caldav"
  static let calendarServer = "http://calendarserver.org/ns/"
  static let apple = "http://apple.com/ns/ical/"

  static let prefixes = [dav: "d", caldav: "c", calendarServer: "cs", apple: "a"]

  static func escape(_ text: String) -> String { Markup.escape(text) }

  /// An element for a prop of any namespace: the known ones with their prefix, others with
  /// a namespace declaration of their own.
  static func element(_ key: (namespace: String, name: String), _ content: String?) -> String {
    let tag: String
    var declaration = ""
    if let prefix = prefixes[key.namespace] {
      tag = "\(prefix):\(key.name)"
    } else {
      tag = "x:\(key.name)"
      declaration = " xmlns:x=\"\(escape(key.namespace))\""
    }
    guard let content, !content.isEmpty else { return "<\(tag)\(declaration)/>" }
    return "<\(tag)\(declaration)>\(content)</\(tag)>"
  }

  static let header =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
  static let namespaces =
    "xmlns:d=\"DAV:\" xmlns:c=\"urn:ietf:params:xml:ns:caldav\" "
    + "xmlns:cs=\"http://calendarserver.org/ns/\" xmlns:a=\"http://apple.com/ns/ical/\""
}
