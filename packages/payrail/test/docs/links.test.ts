// The guide stays navigable as the code moves: every relative link of the
// README files and docs/ leads to a file (and heading) that exists, every
// source folder is named in docs/architecture.md, and the README stays a
// short newcomer's guide. A renamed file, heading or folder fails here, with
// every offender listed, instead of leaving a dead link for a reader.
//
// Folders: every directory under packages/payrail/src counts, the asset-only
// ones (src/http/hosted/, src/web/assets/) included: they hold what the
// hosted card form and the panel serve, and a reader looking for those
// files needs to know where they live.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const PACKAGE = path.resolve(import.meta.dirname, '..', '..');
const REPO = path.resolve(PACKAGE, '..', '..');
const SRC = path.join(PACKAGE, 'src');
const ARCHITECTURE = path.join(REPO, 'docs', 'architecture.md');
const README_MAX_LINES = 300;

/** Lines of a markdown text outside fenced code blocks: a `#` or `[x](y)` in a code sample is not markdown. */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker !== undefined && (fence === null || fence === marker)) {
      fence = fence === null ? marker : null;
      return '';
    }
    return fence === null ? line : '';
  });
}

/** GitHub's heading anchor: lowercase, punctuation dropped except '-' and '_', spaces to '-'. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading anchors on its text
    .replace(/<[^>]+>/g, '') // as does HTML
    .replace(/`/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a markdown file offers; a repeated heading gets -1, -2, ... as on GitHub. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(fs.readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link {
  readonly line: number;
  readonly target: string;
}

/** The relative links of a markdown text: `[text](path)`, `[text](path#anchor)` and `[text](#anchor)`. */
export function relativeLinks(text: string): Link[] {
  const prose = proseLines(text).join('\n');
  const links: Link[] = [];
  // Link text may span lines and hold code spans and brackets one level deep: [`x`](y), [a [b]](c).
  for (const match of prose.matchAll(/\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: and other schemes
    links.push({ line: prose.slice(0, match.index).split('\n').length, target });
  }
  return links;
}

/** What is wrong with one link of `file`, or null when it leads somewhere. */
function brokenBecause(file: string, target: string): string | null {
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), pathPart);
  if (!fs.existsSync(resolved)) return `no such file ${path.relative(REPO, resolved)}`;
  if (anchor === null || anchor === '') return null;
  if (!resolved.endsWith('.md') || !fs.statSync(resolved).isFile()) return null; // anchors are checked in markdown only
  return anchorsOf(resolved).has(anchor.toLowerCase()) ? null : `no heading #${anchor} in ${path.relative(REPO, resolved)}`;
}

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

/** README.md, packages/x/README.md and docs/**.md: what the guide is made of. */
function guideFiles(): string[] {
  const packages = fs
    .readdirSync(path.join(REPO, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(REPO, 'packages', entry.name, 'README.md'))
    .filter((file) => fs.existsSync(file));
  return [path.join(REPO, 'README.md'), ...packages, ...markdownFiles(path.join(REPO, 'docs'))];
}

/** Every directory under `dir`, as its path relative to packages/payrail with a trailing slash. */
function sourceFolders(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return [`${path.relative(PACKAGE, full).split(path.sep).join('/')}/`, ...sourceFolders(full)];
    });
}

/** The source folders docs/architecture.md names, each written as a code span: `src/flows/payin/`. */
function foldersNamedIn(text: string): Set<string> {
  return new Set([...text.matchAll(/`(src\/(?:[\w.-]+\/)*)`/g)].map((match) => match[1]!));
}

describe('docs: the guide holds together', () => {
  it('every relative link leads to an existing file and heading', () => {
    const broken = guideFiles().flatMap((file) =>
      relativeLinks(fs.readFileSync(file, 'utf8')).flatMap(({ line, target }) => {
        const reason = brokenBecause(file, target);
        return reason === null ? [] : [`${path.relative(REPO, file)}:${line}: (${target}) ${reason}`];
      }),
    );
    assert.deepEqual(broken, [], `broken links:\n  ${broken.join('\n  ')}`);
  });

  it('docs/README.md, the index, links every page of docs/', () => {
    const index = path.join(REPO, 'docs', 'README.md');
    const linked = new Set(relativeLinks(fs.readFileSync(index, 'utf8')).map(({ target }) => path.resolve(path.dirname(index), target.split('#')[0]!)));
    const unlisted = markdownFiles(path.join(REPO, 'docs'))
      .filter((file) => file !== index && !linked.has(file))
      .map((file) => path.relative(REPO, file));
    assert.deepEqual(unlisted, [], `pages missing from the index docs/README.md:\n  ${unlisted.join('\n  ')}`);
  });

  it('docs/architecture.md names every folder of packages/payrail/src', () => {
    const named = foldersNamedIn(fs.readFileSync(ARCHITECTURE, 'utf8'));
    const unnamed = sourceFolders(SRC).filter((folder) => !named.has(folder));
    assert.deepEqual(unnamed, [], `folders missing from docs/architecture.md (write each as \`src/.../\`):\n  ${unnamed.join('\n  ')}`);
  });

  it('docs/architecture.md names no source folder that does not exist', () => {
    const stale = [...foldersNamedIn(fs.readFileSync(ARCHITECTURE, 'utf8'))].filter((folder) => !fs.existsSync(path.join(PACKAGE, folder)));
    assert.deepEqual(stale, [], `folders named in docs/architecture.md that do not exist:\n  ${stale.join('\n  ')}`);
  });

  it(`README.md is at most ${README_MAX_LINES} lines`, () => {
    const lines = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move detail into docs/ (at most ${README_MAX_LINES})`);
  });
});

// The checks above pass on a correct tree; these show they would see a fault.
describe('docs: the checks find what they look for', () => {
  it('slugs follow GitHub: lowercase, punctuation dropped except - and _, spaces to -', () => {
    assert.equal(slug('A first charge'), 'a-first-charge');
    assert.equal(slug("The embedded store's driver on Node 24"), 'the-embedded-stores-driver-on-node-24');
    assert.equal(slug('What `npm test` needs'), 'what-npm-test-needs');
    assert.equal(slug('15. Stored customers, payment methods and recurring schedules'), '15-stored-customers-payment-methods-and-recurring-schedules');
    assert.equal(slug('Capture, void, refund: the card lifecycle'), 'capture-void-refund-the-card-lifecycle');
    assert.equal(slug('snake_case and kebab-case'), 'snake_case-and-kebab-case');
  });

  it('relative links are found, external ones and code samples are not', () => {
    const text = [
      'See [the guide](docs/README.md), [`examples/`](../examples) and [a',
      'heading](#a-first-charge).',
      'Not [this](https://example.com) nor [mail](mailto:ops@example.com).',
      '```sh',
      'echo "[not a link](nowhere.md)"',
      '```',
    ].join('\n');
    assert.deepEqual(
      relativeLinks(text).map((link) => link.target),
      ['docs/README.md', '../examples', '#a-first-charge'],
    );
  });

  it('a planted broken link and a planted missing heading are reported', () => {
    const readme = path.join(REPO, 'README.md');
    assert.match(brokenBecause(readme, 'docs/no-such-page.md') ?? '', /no such file docs\/no-such-page\.md/);
    assert.match(brokenBecause(readme, 'docs/sandbox.md#no-such-heading') ?? '', /no heading #no-such-heading/);
    assert.equal(brokenBecause(readme, 'docs/sandbox.md#test-cards'), null);
  });
});
