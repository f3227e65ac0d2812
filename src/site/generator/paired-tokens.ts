// The tokens of a piece of code with the colours of both themes of the pair,
// from one tokenization. shiki's codeToTokensWithThemes tokenizes the code
// once per theme, although which scopes a grammar gives the text does not
// depend on the theme, and then splits each theme's tokens where the other's
// break. Here the grammar tokenizes each line once, giving the stack of
// scopes of each piece (vscode-textmate's tokenizeLine), and a theme's
// attributes of a stack of scopes are what the grammar itself would encode
// for it: vscode-textmate's own Theme.match of each scope, merged down the
// stack as AttributedScopeStack merges them, kept per stack in a tree of
// scopes. A theme's tokens are where those attributes change, as the
// grammar's binary tokens are (LineTokens), so the pieces here break where
// either theme's tokens break, as codeToTokensWithThemes's do: the same
// tokens, split alike, with the same colours (test/site/paired-tokens.test.ts).

import { applyColorReplacements, resolveColorReplacements, splitLines, type Grammar, type ThemeRegistrationResolved } from 'shiki/core';
import { EncodedTokenMetadata, INITIAL, Theme, type StateStack } from 'shiki/textmate';

/** A theme's style of a token, as shiki gives it: the colour after the theme's colour replacements, and the font style bits. */
export interface TokenStyle {
  readonly color: string | undefined;
  readonly fontStyle: number;
}

export interface PairedToken {
  readonly content: string;
  readonly light: TokenStyle;
  readonly dark: TokenStyle;
}

/** What vscode-textmate's grammar keeps that its binary tokens are made from, and its typings leave out. */
interface GrammarAttributes {
  getMetadataForScope(scope: string): { readonly languageId: number; readonly tokenType: number };
  readonly _basicScopeAttributesProvider: { getDefaultAttributes(): { readonly languageId: number; readonly tokenType: number } };
  readonly _tokenTypeMatchers: ReadonlyArray<{ readonly matcher: (scopes: string[]) => boolean; readonly type: number }>;
  readonly balancedBracketSelectors: { readonly matchesAlways: boolean; readonly matchesNever: boolean; match(scopes: string[]): boolean } | null;
}

/** A stack of scopes as Theme.match reads it: the innermost scope's name and the stack it was pushed on. */
type ScopePath = NonNullable<Parameters<Theme['match']>[0]>;

/** One theme of the pair, as the grammar would see it set. */
interface PairedTheme {
  readonly theme: Theme;
  /** The colour of each colour id. */
  readonly colours: ReadonlyArray<string | undefined>;
}

/** A stack of scopes in the tree: each theme's attributes merged down to it, and the attributes its tokens carry. */
interface ScopeNode {
  readonly path: ScopePath | null;
  readonly scopes: readonly string[];
  readonly light: number;
  readonly dark: number;
  readonly children: Map<string, ScopeNode>;
  /** Each theme's attributes of a token with these scopes, compared between tokens as the binary tokens are; undefined at the tree's root. */
  token: { readonly light: number; readonly dark: number; readonly lightStyle: TokenStyle; readonly darkStyle: TokenStyle } | undefined;
}

export interface PairedTokenizer {
  /** The lines of `code`, each a list of tokens, in `grammar`'s language. */
  tokenize(grammar: Grammar, code: string): PairedToken[][];
}

/** A tokenizer for the pair of themes; it keeps a tree of scopes per grammar. */
export function pairedTokenizer(light: ThemeRegistrationResolved, dark: ThemeRegistrationResolved): PairedTokenizer {
  const pair = [pairedTheme(light), pairedTheme(dark)] as const;
  const trees = new WeakMap<Grammar, ScopeNode>();
  return {
    tokenize(grammar, code) {
      let tree = trees.get(grammar);
      if (!tree) trees.set(grammar, (tree = rootOf(grammar as unknown as GrammarAttributes, pair)));
      return tokenizeLines(grammar, tree, pair, code);
    },
  };
}

function pairedTheme(source: ThemeRegistrationResolved): PairedTheme {
  // As shiki's registry sets a theme: each its own colour map.
  const theme = Theme.createFromRawTheme(source);
  const replacements = resolveColorReplacements(source, {});
  return { theme, colours: theme.getColorMap().map((colour) => applyColorReplacements(colour, replacements)) };
}

function rootOf(grammar: GrammarAttributes, [light, dark]: readonly [PairedTheme, PairedTheme]): ScopeNode {
  const basic = grammar._basicScopeAttributesProvider.getDefaultAttributes();
  const defaults = (theme: Theme): number => {
    const style = theme.getDefaults();
    return EncodedTokenMetadata.set(0, basic.languageId, basic.tokenType, null, style.fontStyle, style.foregroundId, style.backgroundId);
  };
  return { path: null, scopes: [], light: defaults(light.theme), dark: defaults(dark.theme), children: new Map(), token: undefined };
}

function tokenizeLines(grammar: Grammar, tree: ScopeNode, pair: readonly [PairedTheme, PairedTheme], code: string): PairedToken[][] {
  const attributes = grammar as unknown as GrammarAttributes;
  const lines: PairedToken[][] = [];
  let state: StateStack = INITIAL;
  for (const [line] of splitLines(code)) {
    // As shiki does: an empty line is not tokenized, and the state goes on to the next line as it was.
    if (line === '') {
      lines.push([]);
      continue;
    }
    // No time limit per line: vscode-textmate's limit is of wall-clock time,
    // so the same code would highlight differently on a busy machine.
    // HIGHLIGHT_LIMIT bounds the work instead (models/languages.ts).
    const result = grammar.tokenizeLine(line, state, 0);
    state = result.ruleStack;
    const tokens: PairedToken[] = [];
    let start = 0;
    let current: ScopeNode['token'];
    for (const piece of result.tokens) {
      // The piece of the line's end, past its text, makes no token.
      if (piece.startIndex >= line.length) break;
      const token = tokenOf(attributes, tree, pair, piece.scopes);
      if (!current) current = token;
      else if (token.light !== current.light || token.dark !== current.dark) {
        tokens.push({ content: line.slice(start, piece.startIndex), light: current.lightStyle, dark: current.darkStyle });
        start = piece.startIndex;
        current = token;
      }
    }
    if (current) tokens.push({ content: line.slice(start), light: current.lightStyle, dark: current.darkStyle });
    lines.push(tokens);
  }
  return lines;
}

/** The node of the tree for a stack of scopes, its token's attributes worked out the first time. */
function tokenOf(grammar: GrammarAttributes, tree: ScopeNode, pair: readonly [PairedTheme, PairedTheme], scopes: readonly string[]): NonNullable<ScopeNode['token']> {
  let node = tree;
  for (const scope of scopes) {
    let child = node.children.get(scope);
    if (!child) node.children.set(scope, (child = childOf(grammar, node, pair, scope)));
    node = child;
  }
  if (!node.token) {
    const light = binaryAttributes(grammar, node.light, node.scopes);
    const dark = binaryAttributes(grammar, node.dark, node.scopes);
    node.token = { light, dark, lightStyle: styleOf(pair[0], light), darkStyle: styleOf(pair[1], dark) };
  }
  return node.token;
}

/** The stack `parent` with `scope` pushed, each theme's attributes merged as AttributedScopeStack's _pushAttributed merges them. */
function childOf(grammar: GrammarAttributes, parent: ScopeNode, [light, dark]: readonly [PairedTheme, PairedTheme], scope: string): ScopeNode {
  // Theme.match reads a stack's scopeName and parent only.
  const path = { parent: parent.path, scopeName: scope } as ScopePath;
  const basic = grammar.getMetadataForScope(scope);
  const merge = (attributes: number, theme: Theme): number => {
    const style = theme.match(path);
    return EncodedTokenMetadata.set(attributes, basic.languageId, basic.tokenType, null, style ? style.fontStyle : -1, style ? style.foregroundId : 0, style ? style.backgroundId : 0);
  };
  return { path, scopes: [...parent.scopes, scope], light: merge(parent.light, light.theme), dark: merge(parent.dark, dark.theme), children: new Map(), token: undefined };
}

/** The attributes a binary token of these scopes carries, as LineTokens encodes them: the grammar's token types and balanced brackets applied. */
function binaryAttributes(grammar: GrammarAttributes, merged: number, scopes: readonly string[]): number {
  let attributes = merged;
  const brackets = grammar.balancedBracketSelectors;
  let balanced = brackets?.matchesAlways ?? false;
  if (grammar._tokenTypeMatchers.length > 0 || (brackets && !brackets.matchesAlways && !brackets.matchesNever)) {
    for (const tokenType of grammar._tokenTypeMatchers) if (tokenType.matcher([...scopes])) attributes = EncodedTokenMetadata.set(attributes, 0, tokenType.type, null, -1, 0, 0);
    if (brackets) balanced = brackets.match([...scopes]);
  }
  return balanced ? EncodedTokenMetadata.set(attributes, 0, 8, true, -1, 0, 0) : attributes;
}

function styleOf(theme: PairedTheme, attributes: number): TokenStyle {
  return { color: theme.colours[EncodedTokenMetadata.getForeground(attributes)], fontStyle: EncodedTokenMetadata.getFontStyle(attributes) };
}
