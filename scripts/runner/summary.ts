/**
 * The job summary as plain text, roughly as the run page shows it: @actions/core writes HTML
 * (headings and tables), which a terminal would otherwise print as tags.
 */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decode(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&(\w+);/g, (whole, name: string) => ENTITIES[name] ?? whole)
}

export function renderSummary(html: string): string {
  const rows = html
    .replace(
      /<h(\d)>(.*?)<\/h\1>/gs,
      (_, level: string, text: string) => `${'#'.repeat(Number(level))} ${text}\n`
    )
    .replace(/<tr>(.*?)<\/tr>/gs, (_, row: string) => {
      const cells = [...row.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/gs)].map(m => m[1])
      return `| ${cells.join(' | ')} |\n`
    })
    .replace(/<[^>]+>/g, '')
  return decode(rows)
    .split('\n')
    .filter(line => line.trim() !== '')
    .join('\n')
}
