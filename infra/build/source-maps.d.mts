export declare const sourceMapsFolderName: 'source-maps';
export declare const sourceMapKey: (code: string | Buffer) => string;
export declare const moveSourceMaps: (folder: string, mapsFolder?: string) => string[];
export declare const javascriptFiles: (folder: string) => string[];
