/** S3 errors are small XML documents; two fields of them are all an error message needs, so no XML parser. */
const xmlEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

function unescapeXml(text: string | undefined): string | undefined {
  return text?.replace(/&(amp|lt|gt|quot|apos|#39);/g, (entity, name: string) => xmlEntities[name] ?? entity);
}

/** S3's error, from its XML body: `NoSuchBucket: The specified bucket does not exist`. */
export async function s3Failure(response: Response): Promise<Error> {
  const body = response.status === 204 ? '' : (await response.text()).slice(0, 4096);
  const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1];
  const message = unescapeXml(/<Message>([^<]*)<\/Message>/.exec(body)?.[1]);
  const said = code
    ? `${code}${message ? `: ${message}` : ''}`
    : `HTTP ${response.status} ${response.statusText}`;
  return new Error(`S3 answered ${said}`);
}
