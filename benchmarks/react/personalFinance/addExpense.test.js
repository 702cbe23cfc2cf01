import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './addExpense';

const fillForm = async () => {
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/description/i), { target: { value: 'Lunch with team' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/amount/i), { target: { value: '12.50' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByTestId('expense-category'), { target: { value: 'food' } });
  });
};

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('records an expense with a numeric amount and category', async () => {
  fetchMock.post('/api/expenses', { status: 201, body: { id: 'e-19' } });

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByText(/add expense/i)); });

  expect(fetchMock.calls('/api/expenses').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/expenses').body)).toEqual({
    description: 'Lunch with team',
    amount: 12.5,
    category: 'food',
  });
  expect(screen.getByText(/expense added/i)).toBeInTheDocument();
}, 10000);

test('shows an error when the expense cannot be recorded', async () => {
  fetchMock.post('/api/expenses', 500);

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByText(/add expense/i)); });

  expect(fetchMock.calls('/api/expenses').length).toBe(1);
  expect(screen.getByText(/failed to add expense/i)).toBeInTheDocument();
}, 10000);
