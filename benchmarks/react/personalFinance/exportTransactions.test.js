import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import ExportTransactions from './ExportTransactions';

const CSV = 'date,description,amount\n2025-01-03,Groceries,-54.20\n2025-01-05,Salary,3200.00\n2025-01-09,Rent,-1100.00\n';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('exports the transactions as CSV and reports the row count', async () => {
  fetchMock.get('/api/transactions/export?format=csv', {
    status: 200,
    body: CSV,
    headers: { 'Content-Type': 'text/csv' },
  });

  await act(async () => { render(<ExportTransactions />); });
  await act(async () => { fireEvent.click(screen.getByText(/export csv/i)); });

  expect(fetchMock.called('/api/transactions/export?format=csv')).toBe(true);
  expect(screen.getByText('Export ready: 3 transactions')).toBeInTheDocument();
}, 10000);

test('shows an error when the export fails', async () => {
  fetchMock.get('/api/transactions/export?format=csv', 500);

  await act(async () => { render(<ExportTransactions />); });
  await act(async () => { fireEvent.click(screen.getByText(/export csv/i)); });

  expect(fetchMock.called('/api/transactions/export?format=csv')).toBe(true);
  expect(screen.getByText(/export failed/i)).toBeInTheDocument();
}, 10000);
