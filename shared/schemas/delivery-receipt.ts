// PLACEHOLDER being replaced by the schemas work in progress.
import { shape } from './common';
export const ActionRequestDeliveryReceiptT = shape('ActionRequestDeliveryReceiptT', {});
export const ActionRequestSupplierTransAddInventoryRequest = shape('ActionRequestSupplierTransAddInventoryRequest', {});
