// `havn completion bash|zsh|fish`: a completion script for the shell, generated from the command
// table itself (program.ts), so a new command or option completes without editing a script
// (docs/cli.md#shell-completion). zsh loads the bash script through bashcompinit, as `az` and
// `aws` do; fish gets its own `complete` lines.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { UsageError } from '../errors.js';

interface Node {
  readonly path: string;
  readonly subcommands: readonly string[];
  readonly options: readonly string[];
}

export function registerCompletion(program: Command, ctx: CliContext): void {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish).')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      `
Examples:
  source <(havn completion bash)                         this shell; add it to ~/.bashrc to keep it
  havn completion zsh > "\${fpath[1]}/_havn"
  havn completion fish > ~/.config/fish/completions/havn.fish`,
    )
    .action((shell: string) => {
      ctx.stdout.write(completionScript(shell, commandTree(program)));
    });
}

/** Every command path with its subcommands and long options, the root first. */
function commandTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const walk = (command: Command, path: string) => {
    nodes.push({
      path,
      subcommands: command.commands.map((c) => c.name()),
      options: [
        ...command.options.map((o) => o.long).filter((l): l is string => l !== undefined),
        '--help',
      ],
    });
    for (const sub of command.commands)
      walk(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  walk(program, '');
  return nodes;
}

export function completionScript(shell: string, nodes: readonly Node[]): string {
  switch (shell) {
    case 'bash':
      return bash(nodes);
    case 'zsh':
      return `#compdef havn\nautoload -U +X bashcompinit && bashcompinit\n${bash(nodes)}`;
    case 'fish':
      return fish(nodes);
    default:
      throw new UsageError(`<shell> must be bash, zsh or fish; got '${shell}'.`);
  }
}

function bash(nodes: readonly Node[]): string {
  const cases = (pick: (n: Node) => readonly string[]) =>
    nodes.map((n) => `    '${n.path}') echo '${pick(n).join(' ')}' ;;`).join('\n');
  return `# havn completion for bash: source <(havn completion bash)
_havn_subcommands() {
  case "$1" in
${cases((n) => n.subcommands)}
  esac
}
_havn_options() {
  case "$1" in
${cases((n) => n.options)}
  esac
}
_havn() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i
  # The command path: the words that name a subcommand of the path so far (option values and
  # positionals are skipped).
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if [[ " $(_havn_subcommands "$path") " == *" $word "* ]]; then
      path="\${path:+$path }$word"
    fi
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_havn_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_havn_subcommands "$path")" -- "$cur"))
  fi
}
complete -o default -F _havn havn
`;
}

function fish(nodes: readonly Node[]): string {
  const lines = [
    '# havn completion for fish: havn completion fish | source',
    'complete -c havn -f',
  ];
  for (const n of nodes) {
    const words = n.path === '' ? [] : n.path.split(' ');
    // Fish sees the path as the subcommands seen so far; the root is "no subcommand yet".
    const condition =
      words.length === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${words.at(-1) ?? ''}`;
    if (n.subcommands.length > 0) {
      lines.push(`complete -c havn -n '${condition}' -a '${n.subcommands.join(' ')}'`);
    }
    for (const option of n.options) {
      lines.push(`complete -c havn -n '${condition}' -l ${option.replace(/^--/, '')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
