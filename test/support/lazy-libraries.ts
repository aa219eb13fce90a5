// Test support (jest setupFilesAfterEnv of every project): the libraries the service loads on demand
// (package.json "imports" `#lazy/*`) are loaded before each test file, so a test may call their synchronous users
// directly: parseXml() needs loadXmlParser() to have resolved, as the HTTP stack does for an XML body.
import { loadXmlParser } from '#shared/http/codecs/xml';

beforeAll(() => loadXmlParser());
