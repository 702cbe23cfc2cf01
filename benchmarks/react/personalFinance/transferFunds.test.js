import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './transferFunds';

const fillForm = async () => {
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/recipient account/i), { target: { value: 'GB29NWBK60161331926819' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/amount/i), { target: { value: '250' } });
  });
};

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('transfers money and shows the transaction reference', async () => {
  fetchMock.post('/api/transfers', { status: 200, body: { reference: 'TX-981' } });

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /transfer/i })); });

  expect(fetchMock.calls('/api/transfers').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/transfers').body)).toMatchObject({
    to: 'GB29NWBK60161331926819',
    amount: 250,
  });
  expect(screen.getByText('Transfer complete (ref TX-981)')).toBeInTheDocument();
}, 10000);

test('shows the reason a transfer was declined', async () => {
  fetchMock.post('/api/transfers', { status: 402, body: { error: 'Insufficient funds' } });

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /transfer/i })); });

  expect(fetchMock.calls('/api/transfers').length).toBe(1);
  expect(screen.getByText('Insufficient funds')).toBeInTheDocument();
  expect(screen.queryByText(/transfer complete/i)).not.toBeInTheDocument();
}, 10000);
