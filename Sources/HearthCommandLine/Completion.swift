/// A bash completion script for a tool, made from its command table: the first word
/// completes to a command, a word starting with `-` to that command's options, anything else
/// to file names.
extension Tool {
  public var bashCompletion: String {
    let function = completionFunction(name)
    let commandNames = commands.map(\.name).joined(separator: " ")
    let global = (globalOptions.sorted().map { "--\($0)" } + ["--json", "--help"])
    let cases = commands.map { command in
      let options =
        command.valuedOptions.sorted().map { "--\($0)" }
        + command.flags.sorted().map { "--\($0)" } + global
      return "    \(command.name)) options=\"\(options.joined(separator: " "))\" ;;"
    }.joined(separator: "\n")
    return """
      # bash completion for \(name), made by `\(name) --completion bash` from its command table.
      \(function)() {
        local current=${COMP_WORDS[COMP_CWORD]}
        if [ "$COMP_CWORD" -eq 1 ]; then
          COMPREPLY=($(compgen -W "\(commandNames) --help\(version == nil ? "" : " --version")" -- "$current"))
          return
        fi
        local options=""
        case "${COMP_WORDS[1]}" in
      \(cases)
        esac
        if [[ $current == -* ]]; then
          COMPREPLY=($(compgen -W "$options" -- "$current"))
        else
          COMPREPLY=($(compgen -f -- "$current"))
        fi
      }
      complete -F \(function) \(name)

      """
  }
}

/// A bash completion script for a program of options only (hearthd): a word starting with
/// `-` completes to one of `options` (without their dashes), anything else to file names.
public func bashCompletion(name: String, options: [String]) -> String {
  let function = completionFunction(name)
  return """
    # bash completion for \(name), made by `\(name) --completion bash` from its options.
    \(function)() {
      local current=${COMP_WORDS[COMP_CWORD]}
      if [[ $current == -* ]]; then
        COMPREPLY=($(compgen -W "\(options.map { "--\($0)" }.joined(separator: " "))" -- "$current"))
      else
        COMPREPLY=($(compgen -f -- "$current"))
      fi
    }
    complete -F \(function) \(name)

    """
}

/// The shell function's name for a program: `hearth-reminders` → `_hearth_reminders`.
func completionFunction(_ name: String) -> String {
  "_" + name.map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
}
