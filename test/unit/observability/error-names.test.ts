// Unit: every error class of the service names itself with a string literal. The logs carry `errorName`
// (shared/observability/logger.ts), and a function's bundle is minified: a name taken from the class itself
// (`new.target.name`, or Error's default) read `wo` or `Error` in the bundled functions' logs, where an operator needs
// `ServiceUnavailable`. The source of shared/ and functions/ is read with TypeScript's parser; a class that extends
// Error, directly or through another class of ours, must declare `name` (a field, or `this.name =` in its
// constructor) as a string literal equal to its class name.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

const sourceFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

interface ErrorClass {
  readonly file: string;
  readonly base: string;
  /** The string literal the class gives `name`, if any. */
  readonly ownName: string | undefined;
}

const literalOf = (node: ts.Node | undefined): string | undefined => (node && ts.isStringLiteralLike(node) ? node.text : undefined);

/** The name a class declares: `name = '...'` as a property, or `this.name = '...'` in its constructor. */
const declaredName = (node: ts.ClassDeclaration): string | undefined => {
  for (const member of node.members) {
    if (ts.isPropertyDeclaration(member) && ts.isIdentifier(member.name) && member.name.text === 'name') return literalOf(member.initializer);
    if (ts.isConstructorDeclaration(member) && member.body) {
      for (const statement of member.body.statements) {
        if (!ts.isExpressionStatement(statement) || !ts.isBinaryExpression(statement.expression)) continue;
        const { left, right, operatorToken } = statement.expression;
        if (operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(left) && left.expression.kind === ts.SyntaxKind.ThisKeyword && left.name.text === 'name') {
          return literalOf(right);
        }
      }
    }
  }
  return undefined;
};

const classes = new Map<string, ErrorClass>();
for (const file of [...sourceFiles('shared'), ...sourceFiles('functions')]) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && node.name) {
      const heritage = node.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
      if (heritage && ts.isIdentifier(heritage)) classes.set(node.name.text, { file, base: heritage.text, ownName: declaredName(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const extendsError = (name: string, seen = new Set<string>()): boolean => {
  if (name === 'Error') return true;
  const found = classes.get(name);
  if (!found || seen.has(name)) return false;
  return extendsError(found.base, seen.add(name));
};

const errorClasses = [...classes.entries()].filter(([, found]) => extendsError(found.base));

describe('error classes', () => {
  it('are found (the scan reads the service\'s sources)', () => {
    expect(errorClasses.length).toBeGreaterThan(40);
    expect(errorClasses.map(([name]) => name)).toEqual(expect.arrayContaining(['ApiError', 'ServiceUnavailable', 'SaveInProgress', 'KeyAlreadyClaimed']));
  });

  it.each(errorClasses)('%s names itself with a literal, as its class is named', (name, found) => {
    expect({ file: found.file, name: found.ownName }).toEqual({ file: found.file, name });
  });
});
